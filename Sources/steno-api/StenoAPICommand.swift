import ArgumentParser
import Foundation
import Logging
import StenoAPI
import StenoCore
import StenoInfrastructure
import StenoLogging
import StenoObjectStore
import StenoPostgres
import StenoStore
import StenoVoice

/// `steno-api`: serves the HTTP API until SIGTERM or SIGINT.
@main
struct StenoAPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steno-api",
        abstract: "Serve Steno's HTTP API: media, transcripts, events, and OpenAI's /v1/audio/transcriptions.",
        discussion: """
            The database comes from STENO_DATABASE_URL (and STENO_DATABASE_PASSWORD or \
            STENO_DATABASE_PASSWORD_FILE); connect as a login role granted steno_api (docs/api.md). \
            Clients sign requests with keys made by `steno keys create`. Flags override the \
            STENO_API_* variables named in each flag's help. The contract is served at /openapi.yaml.
            """,
        version: StenoVersion.current)

    @Option(help: "Address to listen on (STENO_API_HOST, default 0.0.0.0).")
    var host: String?

    @Option(help: "Port (STENO_API_PORT, default \(APIConfiguration.defaultPort)); 0 picks a free one.")
    var port: String?

    @Option(help: "Directory uploads are written to, shared with every worker at the same path (STENO_UPLOAD_DIR); none: no uploads.")
    var uploadDir: String?

    @Option(help: "The only directory `path` sources may name (STENO_MEDIA_ROOT); none: no path sources.")
    var mediaRoot: String?

    @Option(help: "Largest upload in MiB (STENO_API_MAX_UPLOAD_MB, default \(APIConfiguration.defaultMaxUploadBytes >> 20)).")
    var maxUploadMb: String?

    @Option(help: "Requests a second each key may send (STENO_API_RATE, default 50).")
    var rate: String?

    @Option(help: "Requests a key may send at once above its rate (STENO_API_BURST, default 100).")
    var burst: String?

    @Option(help: "Hosts that client URLs may reach although they resolve to private addresses, comma-separated (STENO_API_ALLOWED_HOSTS).")
    var allowedHosts: String?

    @Option(help: "Seconds /v1/audio/transcriptions waits for the fleet before 504 (STENO_API_TRANSCRIPTION_TIMEOUT_SECONDS, default 21600).")
    var transcriptionTimeoutSeconds: String?

    @Option(help: "Pooled database connections (STENO_API_DATABASE_CONNECTIONS, default 4), besides one for LISTEN.")
    var databaseConnections: String?

    @Option(help: "Hours a web view sign-in lasts (STENO_WEB_SESSION_HOURS, default 12).")
    var webSessionHours: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        StenoLogging.bootstrap(environment: environment)
        let logger = Logger(label: "steno.api")
        let settings: APIConfiguration
        let database: PostgresConfiguration
        do {
            settings = try configuration(environment)
            database = try PostgresConfiguration.fromEnvironment(environment, applicationName: "steno-api")
        } catch {
            throw ValidationError("\(error)")
        }
        do {
            if let directory = settings.uploadDirectory {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
                    FileManager.default.isWritableFile(atPath: directory)
                else {
                    throw ValidationError("STENO_UPLOAD_DIR \(directory) must be a directory steno-api can write to")
                }
            }
            let client = PostgresClient(configuration: database, maxConnections: settings.databaseConnections, logger: logger)
            let server = APIServer(configuration: settings, database: database, client: client, logger: logger)
            try await server.checkStartup()
            try await server.run()
            await client.shutdown()
        } catch {
            logger.critical("steno-api cannot run", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }

    private func configuration(_ environment: [String: String]) throws -> APIConfiguration {
        func setting(_ flag: String?, _ flagName: String, _ variable: String) -> SettingText? {
            SettingText.from(flag: flag, flagName, variable: variable, in: environment)
        }
        func nonEmpty(_ flag: String?, _ variable: String) -> String? {
            (flag ?? environment[variable]).flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        }
        var settings = APIConfiguration()
        settings.host = nonEmpty(host, "STENO_API_HOST") ?? settings.host
        settings.port = try SettingValue.integer(setting(port, "--port", "STENO_API_PORT"), in: 0...65535) ?? settings.port
        settings.uploadDirectory = nonEmpty(uploadDir, "STENO_UPLOAD_DIR").map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        settings.mediaRoot = nonEmpty(mediaRoot, "STENO_MEDIA_ROOT")
        if let megabytes = try SettingValue.integer(setting(maxUploadMb, "--max-upload-mb", "STENO_API_MAX_UPLOAD_MB"), in: 1...(1 << 24)) {
            settings.maxUploadBytes = Int64(megabytes) << 20
        }
        var rate = settings.rate
        rate.requestsPerSecond = try SettingValue.number(setting(self.rate, "--rate", "STENO_API_RATE"), in: 0.01...1_000_000) ?? rate.requestsPerSecond
        if let burst = try SettingValue.integer(setting(burst, "--burst", "STENO_API_BURST"), in: 1...10_000_000) {
            rate.burst = Double(burst)
        }
        settings.rate = rate
        if let hosts = nonEmpty(allowedHosts, "STENO_API_ALLOWED_HOSTS") {
            settings.outbound = OutboundURLPolicy(parsingAllowedHosts: hosts)
        }
        if let timeout = try SettingValue.seconds(
            setting(transcriptionTimeoutSeconds, "--transcription-timeout-seconds", "STENO_API_TRANSCRIPTION_TIMEOUT_SECONDS"), in: 1...(7 * 86400))
        {
            settings.transcriptionTimeout = timeout
        }
        settings.databaseConnections =
            try SettingValue.integer(setting(databaseConnections, "--database-connections", "STENO_API_DATABASE_CONNECTIONS"), in: 1...64)
            ?? settings.databaseConnections
        // The speaker encoder measures the reference clips of known speakers. A model named
        // and missing stops the server; none found leaves those requests refused with a reason.
        let speakerModel = SpeakerEncoderModel.locate(configured: nonEmpty(nil, "STENO_SPEAKER_MODEL"))
        if nonEmpty(nil, "STENO_SPEAKER_MODEL") != nil || FileManager.default.fileExists(atPath: speakerModel) {
            settings.speakers = SpeakerEncoder(model: try SpeakerEncoderModel(contentsOf: speakerModel))
        }
        if let hours = try SettingValue.number(setting(webSessionHours, "--web-session-hours", "STENO_WEB_SESSION_HOURS"), in: 0.01...(24 * 90), unit: "hours") {
            settings.webSessionLifetime = .seconds(hours * 3600)
        }
        // With an object store, recordings move there once received: the upload directory is
        // only this server's spool, a private one when none is named.
        if let store = try ObjectStoreConfiguration.fromEnvironment(environment) {
            settings.objects = ObjectStore(store, logger: Logger(label: "steno.api.store"))
            if settings.uploadDirectory == nil {
                let spool = FileManager.default.temporaryDirectory.appendingPathComponent("steno-api-spool").path
                try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                settings.uploadDirectory = spool
            }
        }
        return settings
    }
}
