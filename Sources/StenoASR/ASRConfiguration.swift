public import Foundation
import StenoCore
public import StenoInfrastructure

/// How `steno-asr` listens and recognises; from flags, or `STENO_ASR_*` variables.
public struct ASRConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Decoders loaded, so recordings recognised at once.
    public var recognizers: Int
    /// Requests that may wait for a decoder; beyond that: 503 with `Retry-After`.
    public var queueLength: Int
    public var maxUploadBytes: Int
    /// When set, requests need `Authorization: Bearer <key>`.
    public var apiKey: String?
    public var modelDirectory: String
    /// The model name listed by `GET /v1/models`; requests may name any model.
    public var modelName: String

    public static let defaultPort = 9000

    public init(
        host: String = "127.0.0.1", port: Int = ASRConfiguration.defaultPort,
        recognizers: Int = ProcessInfo.processInfo.activeProcessorCount, queueLength: Int? = nil,
        maxUploadBytes: Int = 25 * 1024 * 1024, apiKey: String? = nil,
        modelDirectory: String = "/usr/share/pocketsphinx/model/en-us", modelName: String = "pocketsphinx-en-us"
    ) {
        self.host = host
        self.port = port
        self.recognizers = max(1, recognizers)
        self.queueLength = queueLength ?? max(1, recognizers) * 4
        self.maxUploadBytes = maxUploadBytes
        self.apiKey = apiKey
        self.modelDirectory = modelDirectory
        self.modelName = modelName
    }

    /// Reads `STENO_ASR_HOST`, `_PORT`, `_RECOGNIZERS`, `_QUEUE`, `_MAX_UPLOAD_MB`,
    /// `_API_KEY` or `_API_KEY_FILE`, and `_MODEL_DIR`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(ASRConfigurationError) -> ASRConfiguration {
        var configuration = ASRConfiguration()
        if let host = environment["STENO_ASR_HOST"], !host.isEmpty { configuration.host = host }
        do {
            try configuration.apply(
                port: SettingText.from(variable: "STENO_ASR_PORT", in: environment),
                recognizers: SettingText.from(variable: "STENO_ASR_RECOGNIZERS", in: environment),
                queue: SettingText.from(variable: "STENO_ASR_QUEUE", in: environment),
                maxUploadMegabytes: SettingText.from(variable: "STENO_ASR_MAX_UPLOAD_MB", in: environment))
        } catch {
            throw ASRConfigurationError(error.description)
        }
        if let directory = environment["STENO_ASR_MODEL_DIR"], !directory.isEmpty { configuration.modelDirectory = directory }
        if let path = environment["STENO_ASR_API_KEY_FILE"], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ASRConfigurationError("STENO_ASR_API_KEY_FILE names \(path), which cannot be read")
            }
            configuration.apiKey = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let key = environment["STENO_ASR_API_KEY"], !key.isEmpty {
            configuration.apiKey = key
        }
        return configuration
    }

    /// The numbers, from flags or variables alike, within one range each: `--recognizers` set
    /// without `queue` also sets the queue to four per recogniser.
    public mutating func apply(
        port: SettingText?, recognizers: SettingText?, queue: SettingText?, maxUploadMegabytes: SettingText?
    ) throws(SettingProblem) {
        if let port = try SettingValue.integer(port, in: Self.portRange) { self.port = port }
        if let recognizers = try SettingValue.integer(recognizers, in: Self.recognizerRange) {
            self.recognizers = recognizers
            queueLength = recognizers * 4
        }
        if let queue = try SettingValue.integer(queue, in: Self.queueRange) { queueLength = queue }
        if let megabytes = try SettingValue.integer(maxUploadMegabytes, in: Self.maxUploadMegabyteRange) { maxUploadBytes = megabytes * 1024 * 1024 }
    }

    public static let portRange = 0...65535
    public static let recognizerRange = 1...256
    public static let queueRange = 0...100_000
    public static let maxUploadMegabyteRange = 1...4096
}

/// A setting that cannot be used; says which and why.
public struct ASRConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
