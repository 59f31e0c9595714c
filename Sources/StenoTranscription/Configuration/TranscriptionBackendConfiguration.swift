import Foundation
public import StenoCore

/// Everything needed to talk to one OpenAI-compatible transcription backend.
///
/// Its description and mirror show the URL without credentials and extra headers by name only.
public struct TranscriptionBackendConfiguration: Sendable, CustomStringConvertible, CustomReflectable {
    /// A short name for logs, results and `steno backend check`: `primary`, `fallback`, `groq`.
    public var name: String
    /// Scheme, host, port and optional path prefix, such as `https://api.openai.com` or
    /// `https://api.groq.com/openai`. A trailing `/v1` is accepted too.
    public var baseURL: String
    /// The endpoint below the base URL; whisper.cpp's server answers on `/inference` unless started
    /// with `--inference-path /v1/audio/transcriptions`.
    public var path: String
    /// The translations endpoint below the base URL; nil: beside `path`, `/v1/audio/translations`
    /// for `/v1/audio/transcriptions` (`translationURL`).
    public var translationPath: String?
    public var apiKey: APIKey?
    public var model: String
    /// Sent with every request, such as `OpenAI-Organization`. Values may be secret: never printed.
    public var extraHeaders: [(name: String, value: String)]
    /// Extra multipart form fields sent with every request, for servers that read other names
    /// (`model_name=tiny.en` for faster-whisper-server, `beam_size=5`). A field of the same name
    /// as one Steno sends (`model`, `response_format`, ...) replaces Steno's.
    public var extraFields: [(name: String, value: String)] = []
    /// `verbose_json` gives timestamps; the gpt-4o transcribe models accept only `json` or `text`.
    public var responseFormat: TranscriptionResponseFormat
    /// Sent only with `verbose_json`. Groq rejects `word`; vLLM and LocalAI ignore both.
    public var timestampGranularities: [TimestampGranularity]
    /// US dollars per minute of audio, for cost reports; nil when unknown or free.
    public var pricePerAudioMinute: Double?
    public var limits: TranscriptionLimits
    public var retry: TranscriptionRetryPolicy
    /// The fleet's budget at this backend; empty for none. Kept by the client's gate.
    public var rateLimit = RateLimit()

    public init(
        name: String = "primary", baseURL: String, path: String = "/v1/audio/transcriptions", apiKey: APIKey? = nil,
        model: String = "whisper-1", extraHeaders: [(name: String, value: String)] = [],
        responseFormat: TranscriptionResponseFormat = .verboseJSON, timestampGranularities: [TimestampGranularity] = [.segment],
        pricePerAudioMinute: Double? = nil, limits: TranscriptionLimits = TranscriptionLimits(),
        retry: TranscriptionRetryPolicy = TranscriptionRetryPolicy()
    ) {
        self.name = name
        self.baseURL = baseURL
        self.path = path
        self.apiKey = apiKey
        self.model = model
        self.extraHeaders = extraHeaders
        self.responseFormat = responseFormat
        self.timestampGranularities = timestampGranularities
        self.pricePerAudioMinute = pricePerAudioMinute
        self.limits = limits
        self.retry = retry
    }

    /// The full URL a translation is posted to: `translationPath` below the base URL, else the
    /// transcription endpoint's sibling (`.../audio/translations` for `.../audio/transcriptions`);
    /// nil when the transcription path has no such sibling (whisper.cpp's `/inference`).
    public var translationURL: String? {
        if let translationPath { return Self.url(base: baseURL, path: translationPath) }
        let transcriptions = "/audio/transcriptions"
        guard endpointURL.hasSuffix(transcriptions) else { return nil }
        return String(endpointURL.dropLast(transcriptions.count)) + "/audio/translations"
    }

    /// The full URL posted to.
    public var endpointURL: String {
        Self.url(base: baseURL, path: path)
    }

    static func url(base baseURL: String, path: String) -> String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        var path = path.hasPrefix("/") ? path : "/" + path
        // Accept both `https://host` and `https://host/v1` as the base URL.
        if base.hasSuffix("/v1"), path.hasPrefix("/v1/") { path.removeFirst(3) }
        return base + path
    }

    /// The endpoint without credentials, query or fragment: safe to log and print.
    public var displayURL: String {
        var url = Substring(endpointURL)
        if let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) { url = url[..<end] }
        if let schemeEnd = url.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = url[authorityStart...].firstIndex(of: "/") ?? url.endIndex
            if let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") {
                url = url[..<authorityStart] + url[url.index(after: at)...]
            }
        }
        return String(url)
    }

    /// Every secret this configuration carries, for redaction.
    var secrets: [String] {
        var secrets = extraHeaders.map(\.value)
        if let apiKey { secrets.append(apiKey.value) }
        if let userInfo = userInfo { secrets.append(userInfo) }
        return secrets
    }

    private var userInfo: String? {
        guard let schemeEnd = baseURL.range(of: "://") else { return nil }
        let authority = baseURL[schemeEnd.upperBound...].prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return String(authority[..<at])
    }

    public var description: String {
        let key = apiKey.map { "key from \($0.source)" } ?? "no key"
        let headers = extraHeaders.isEmpty ? "" : ", extra headers: \(extraHeaders.map(\.name).joined(separator: ", "))"
        // Names only, as for headers: a server may take a key as a form field.
        let fields = extraFields.isEmpty ? "" : ", extra fields: \(extraFields.map(\.name).joined(separator: ", "))"
        return "backend \(name) at \(displayURL), model \(model), \(responseFormat.rawValue), \(key)\(headers)\(fields)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "name": name, "url": displayURL, "apiKey": apiKey as Any, "model": model,
            "extraHeaders": extraHeaders.map(\.name), "extraFields": extraFields.map(\.name),
            "responseFormat": responseFormat,
            "timestampGranularities": timestampGranularities, "pricePerAudioMinute": pricePerAudioMinute as Any,
            "limits": limits, "retry": retry,
        ])
    }
}
