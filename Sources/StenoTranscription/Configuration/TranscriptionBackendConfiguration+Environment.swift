public import Foundation
import StenoCore
import StenoInfrastructure

extension TranscriptionBackendConfiguration {
    /// Reads a backend from `STENO_*` variables; the fallback backend uses the same names with
    /// `STENO_FALLBACK_` in place of `STENO_` (`STENO_FALLBACK_BACKEND_URL`, ...).
    ///
    /// | variable | meaning | default |
    /// | --- | --- | --- |
    /// | `STENO_BACKEND_URL` | base URL: `https://api.openai.com`, `https://api.groq.com/openai`, `http://asr:8000` | required |
    /// | `STENO_BACKEND_PATH` | endpoint path (`/inference` for a plain whisper.cpp server) | `/v1/audio/transcriptions` |
    /// | `STENO_BACKEND_TRANSLATION_PATH` | the translations endpoint (`steno enqueue --translate`) | beside the path: `/v1/audio/translations` |
    /// | `STENO_BACKEND_NAME` | name in logs, results and reports | `primary` / `fallback` |
    /// | `STENO_API_KEY`, `STENO_API_KEY_FILE` | bearer key, or a file holding it (the file wins) | none |
    /// | `STENO_MODEL` | `whisper-1`, `gpt-4o-transcribe`, `Systran/faster-whisper-small`, ... | `whisper-1` |
    /// | `STENO_BACKEND_HEADERS` | extra headers, `Name: value` separated by newlines or `;` | none |
    /// | `STENO_BACKEND_FIELDS` | extra form fields, `name=value` separated by newlines or `;` (`model_name=tiny.en`) | none |
    /// | `STENO_RESPONSE_FORMAT` | `verbose_json`, `json` (gpt-4o models) or `text` | `verbose_json` |
    /// | `STENO_TIMESTAMP_GRANULARITIES` | `segment`, `word` or `segment,word` (verbose_json only) | `segment` |
    /// | `STENO_PRICE_PER_MINUTE` | US dollars per audio minute, for cost reports | none |
    /// | `STENO_CONNECT_TIMEOUT`, `STENO_REQUEST_TIMEOUT`, `STENO_ATTEMPT_TIMEOUT`, `STENO_STALL_TIMEOUT` | seconds | 10, 120, 600, 30 |
    /// | `STENO_MAX_RETRIES` | retries within one attempt | 3 |
    /// | `STENO_RETRY_BASE`, `STENO_RETRY_CAP` | backoff seconds: base doubles per retry up to the cap | 1, 4 |
    /// | `STENO_FALLBACK_AFTER` | primary failures on a chunk before the fallback takes it | 2 |
    /// | `STENO_BACKEND_MAX_REQUESTS_PER_MINUTE` | requests a minute for the whole fleet, shared through PostgreSQL | none |
    /// | `STENO_BACKEND_MAX_AUDIO_SECONDS_PER_HOUR` | seconds of audio sent an hour for the whole fleet | none |
    ///
    /// Returns nil when the URL variable is not set (for the fallback: no fallback configured).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, prefix: String = "STENO_",
        defaultName: String = "primary"
    ) throws(TranscriptionError) -> TranscriptionBackendConfiguration? {
        let reader = EnvironmentReader(environment: environment, prefix: prefix)
        guard let baseURL = reader.string("BACKEND_URL") else { return nil }
        guard baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://") else {
            throw reader.invalid("BACKEND_URL", "must start with http:// or https://")
        }
        var configuration = TranscriptionBackendConfiguration(name: reader.string("BACKEND_NAME") ?? defaultName, baseURL: baseURL)
        if let path = reader.string("BACKEND_PATH") { configuration.path = path }
        configuration.translationPath = reader.string("BACKEND_TRANSLATION_PATH")
        configuration.apiKey = try reader.apiKey()
        if let model = reader.string("MODEL") { configuration.model = model }
        configuration.extraHeaders = try reader.headers("BACKEND_HEADERS")
        configuration.extraFields = try reader.fields("BACKEND_FIELDS")
        if let format = reader.string("RESPONSE_FORMAT") {
            guard let parsed = TranscriptionResponseFormat(rawValue: format) else {
                throw reader.invalid("RESPONSE_FORMAT", "must be one of verbose_json, json, text")
            }
            configuration.responseFormat = parsed
        }
        if let granularities = reader.string("TIMESTAMP_GRANULARITIES") {
            configuration.timestampGranularities = []
            for item in granularities.split(separator: ",") {
                guard let granularity = TimestampGranularity(rawValue: item.trimmingWhitespace) else {
                    throw reader.invalid("TIMESTAMP_GRANULARITIES", "must list segment and/or word")
                }
                configuration.timestampGranularities.append(granularity)
            }
        }
        let ranges = EnvironmentRanges.self
        configuration.pricePerAudioMinute = try reader.number("PRICE_PER_MINUTE", in: ranges.price)
        var limits = configuration.limits
        if let seconds = try reader.number("CONNECT_TIMEOUT", in: ranges.connect, unit: "seconds") { limits.connect = .seconds(seconds) }
        if let seconds = try reader.number("REQUEST_TIMEOUT", in: ranges.request, unit: "seconds") { limits.request = .seconds(seconds) }
        if let seconds = try reader.number("ATTEMPT_TIMEOUT", in: ranges.attempt, unit: "seconds") { limits.attempt = .seconds(seconds) }
        if let seconds = try reader.number("STALL_TIMEOUT", in: ranges.stall, unit: "seconds") { limits.stall = .seconds(seconds) }
        configuration.limits = limits
        if let retries = try reader.number("MAX_RETRIES", in: ranges.retries, whole: true) { configuration.retry.maximumRetries = Int(retries) }
        if let base = try reader.number("RETRY_BASE", in: ranges.backoff, unit: "seconds") { configuration.retry.backoff.base = .seconds(base) }
        if let cap = try reader.number("RETRY_CAP", in: ranges.backoff, unit: "seconds") { configuration.retry.backoff.cap = .seconds(cap) }
        configuration.rateLimit = RateLimit(
            requestsPerMinute: try reader.number("BACKEND_MAX_REQUESTS_PER_MINUTE", in: ranges.requestsPerMinute),
            audioSecondsPerHour: try reader.number("BACKEND_MAX_AUDIO_SECONDS_PER_HOUR", in: ranges.audioSecondsPerHour))
        return configuration
    }
}

/// The accepted range of each numeric backend variable: a value outside it (or `inf`, `nan`,
/// `1e308`) stops the process with a message naming the variable, instead of trapping later.
public enum EnvironmentRanges {
    public static let connect: ClosedRange<Double> = 0.1...600
    public static let request: ClosedRange<Double> = 1...86_400
    public static let attempt: ClosedRange<Double> = 1...86_400
    public static let stall: ClosedRange<Double> = 1...3_600
    public static let retries: ClosedRange<Double> = 0...20
    public static let backoff: ClosedRange<Double> = 0...3_600
    public static let price: ClosedRange<Double> = 0...1_000
    public static let fallbackAfter: ClosedRange<Double> = 1...100
    public static let requestsPerMinute: ClosedRange<Double> = 0.01...1_000_000
    public static let audioSecondsPerHour: ClosedRange<Double> = 1...1_000_000_000
}

/// Reads prefixed variables. Its errors name the variable; a number's value only when short
/// enough not to be a key in the wrong variable (`SettingProblem`), the other values never.
struct EnvironmentReader {
    let environment: [String: String]
    let prefix: String

    func string(_ name: String) -> String? {
        guard let value = environment[prefix + name]?.trimmingWhitespace, !value.isEmpty else { return nil }
        return value
    }

    func number(_ name: String, in range: ClosedRange<Double>, whole: Bool = false, unit: String? = nil) throws(TranscriptionError) -> Double? {
        let setting = SettingText.from(variable: prefix + name, in: environment)
        do {
            if whole {
                let bounds = Int(range.lowerBound)...Int(range.upperBound)
                return try SettingValue.integer(setting, in: bounds, unit: unit).map(Double.init)
            }
            return try SettingValue.number(setting, in: range, unit: unit)
        } catch {
            throw TranscriptionError(.invalidConfiguration, .configuration, error.description)
        }
    }

    /// `*_API_KEY_FILE` wins over `*_API_KEY`, as for every secret: files are how container
    /// platforms hand secrets over.
    func apiKey() throws(TranscriptionError) -> APIKey? {
        if let path = string("API_KEY_FILE") {
            let contents: String
            do {
                contents = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw TranscriptionError(
                    .invalidConfiguration, .configuration, "\(prefix)API_KEY_FILE=\(path) cannot be read")
            }
            let key = contents.trimmingWhitespace
            guard !key.isEmpty else { throw invalid("API_KEY_FILE", "names an empty file") }
            return APIKey(key, source: "\(prefix)API_KEY_FILE")
        }
        return string("API_KEY").map { APIKey($0, source: "\(prefix)API_KEY") }
    }

    func headers(_ name: String) throws(TranscriptionError) -> [(name: String, value: String)] {
        guard let text = string(name) else { return [] }
        var headers: [(name: String, value: String)] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == ";" }) {
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty { continue }
            guard let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex else {
                throw invalid(name, "must hold `Name: value` pairs separated by newlines or `;`")
            }
            headers.append((trimmed[..<colon].trimmingWhitespace, trimmed[trimmed.index(after: colon)...].trimmingWhitespace))
        }
        return headers
    }

    /// `name=value` pairs separated by newlines or `;`; names are form field names.
    func fields(_ name: String) throws(TranscriptionError) -> [(name: String, value: String)] {
        guard let text = string(name) else { return [] }
        var fields: [(name: String, value: String)] = []
        for pair in text.split(whereSeparator: { $0 == "\n" || $0 == ";" }) {
            let trimmed = pair.trimmingWhitespace
            if trimmed.isEmpty { continue }
            let equals = trimmed.firstIndex(of: "=")
            let field = equals.map { String(trimmed[..<$0].trimmingWhitespace) } ?? ""
            guard let equals, !field.isEmpty,
                  field.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-[].".unicodeScalars.contains($0)) }) else {
                throw invalid(name, "must hold `name=value` pairs separated by newlines or `;`, names of letters, digits, `_`, `-`, `.` and `[]`")
            }
            fields.append((field, String(trimmed[trimmed.index(after: equals)...].trimmingWhitespace)))
        }
        return fields
    }

    func invalid(_ name: String, _ problem: String) -> TranscriptionError {
        TranscriptionError(.invalidConfiguration, .configuration, "\(prefix)\(name) \(problem)")
    }
}
