import ArgumentParser
import Foundation
import Logging
import StenoASR
import StenoCore
import StenoInfrastructure

/// `steno-asr`: a local, offline, OpenAI-compatible transcription server (pocketsphinx, English).
@main
@available(macOS 15, *)
struct StenoASRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steno-asr",
        abstract: "A local, offline, OpenAI-compatible transcription server (English, pocketsphinx).",
        discussion: """
            Serves POST /v1/audio/transcriptions (multipart, as OpenAI defines it: response_format json, text,
            verbose_json, srt or vtt; timestamp_granularities[] word), GET /v1/models and GET /healthz.
            Flags override the STENO_ASR_* variables: STENO_ASR_HOST, STENO_ASR_PORT, STENO_ASR_RECOGNIZERS,
            STENO_ASR_QUEUE, STENO_ASR_MAX_UPLOAD_MB, STENO_ASR_API_KEY or STENO_ASR_API_KEY_FILE, STENO_ASR_MODEL_DIR.
            Stops gracefully on SIGTERM or SIGINT.
            """,
        version: StenoVersion.current)

    @Option(help: "Address to listen on (default 127.0.0.1; 0.0.0.0 in a container).") var host: String?
    @Option(help: "Port to listen on (default 9000; 0 picks a free one).") var port: String?
    @Option(help: "Recognisers loaded, so recordings transcribed at once (default: the number of cores).") var recognizers: String?
    @Option(help: "Requests that may wait for a recogniser before the server answers 503.") var queue: String?
    @Option(name: .customLong("max-upload-mb"), help: "Largest upload accepted, in MiB (default 25).") var maxUploadMegabytes: String?
    @Option(name: .customLong("model-dir"), help: "pocketsphinx model folder (default /usr/share/pocketsphinx/model/en-us).") var modelDirectory: String?

    func run() async throws {
        let level = ProcessInfo.processInfo.environment["STENO_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var configuration: ASRConfiguration
        do {
            configuration = try ASRConfiguration.fromEnvironment()
        } catch {
            throw ValidationError(error.description)
        }
        if let host { configuration.host = host }
        do {
            try configuration.apply(
                port: port.map { SettingText(name: "--port", text: $0) },
                recognizers: recognizers.map { SettingText(name: "--recognizers", text: $0) },
                queue: queue.map { SettingText(name: "--queue", text: $0) },
                maxUploadMegabytes: maxUploadMegabytes.map { SettingText(name: "--max-upload-mb", text: $0) })
        } catch {
            throw ValidationError(error.description)
        }
        if let modelDirectory { configuration.modelDirectory = modelDirectory }

        let server: ASRServer
        do {
            server = try ASRServer(configuration: configuration)
        } catch {
            FileHandle.standardError.write(Data("steno-asr: \(error)\n".utf8))
            throw ExitCode(2)
        }
        try await server.run()
    }
}
