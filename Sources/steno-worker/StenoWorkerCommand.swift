import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StenoCore
import StenoPostgres
import StenoTranscription
import StenoWorker

/// `steno-worker`: claims jobs from PostgreSQL and transcribes until SIGTERM or SIGINT.
@main
struct StenoWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steno-worker",
        abstract: "Claim media, chapter, chunk and merge jobs from PostgreSQL and transcribe them.",
        discussion: """
            The database comes from STENO_DATABASE_URL (and STENO_DATABASE_PASSWORD or \
            STENO_DATABASE_PASSWORD_FILE); the transcription backend from STENO_BACKEND_URL, \
            STENO_API_KEY or STENO_API_KEY_FILE, STENO_MODEL and the other STENO_* backend variables. \
            Flags override the STENO_WORKER_* variables named in each flag's help.
            """)

    @Option(help: "Jobs in flight at once (STENO_WORKER_CONCURRENCY).")
    var concurrency: Int?

    @Option(help: "Decodes and encodes at once, normally the cores (STENO_WORKER_EXTRACTION_SLOTS).")
    var extractionSlots: Int?

    @Option(help: "Seconds a job's lease lasts without a heartbeat (STENO_WORKER_LEASE_SECONDS).")
    var leaseSeconds: Double?

    @Option(help: "Target chunk length in seconds (STENO_CHUNK_SECONDS).")
    var chunkSeconds: Double?

    @Option(help: "Seconds running jobs may take to finish on SIGTERM (STENO_WORKER_GRACE_SECONDS).")
    var graceSeconds: Double?

    @Option(help: "Seconds between polls when no notification arrives (STENO_WORKER_POLL_SECONDS).")
    var pollSeconds: Double?

    @Option(help: "Seconds between rescues of expired leases (STENO_WORKER_RESCUE_SECONDS).")
    var rescueSeconds: Double?

    @Option(help: "Port of /healthz, /readyz and /metrics (STENO_WORKER_HTTP_PORT); 0 picks a free one.")
    var httpPort: Int?

    @Option(help: "Worker id in `workers` and job leases (STENO_WORKER_ID); default host-pid-random.")
    var workerID: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let level = Logger.Level(rawValue: environment["STENO_LOG_LEVEL"] ?? "info") ?? .info
        // Plain lines for a person at a terminal, JSON lines for a log collector otherwise.
        let terminal = isatty(STDERR_FILENO) == 1
        LoggingSystem.bootstrap { label in
            if terminal {
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            return JSONLogHandler(label: label, logLevel: level)
        }
        let logger = Logger(label: "steno.worker")
        do {
            let runtime = try makeRuntime(environment: environment, logger: logger)
            let port = try httpPort ?? number(environment, "STENO_WORKER_HTTP_PORT").map { Int($0) } ?? 9464
            let group = ServiceGroup(configuration: .init(
                services: [
                    runtime,
                    runtime.makeHTTPApplication(port: port) { bound in
                        logger.info("serving /healthz, /readyz and /metrics", metadata: ["port": "\(bound)"])
                    },
                ], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
            try await group.run()
        } catch {
            logger.critical("steno-worker cannot run", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }

    private func makeRuntime(environment: [String: String], logger: Logger) throws -> WorkerRuntime {
        var settings = WorkerConfiguration(version: StenoTranscriptionVersion.current)
        if let id = workerID ?? environment["STENO_WORKER_ID"], !id.isEmpty { settings.workerID = id }
        if let value = try concurrency ?? number(environment, "STENO_WORKER_CONCURRENCY").map({ Int($0) }) {
            settings.concurrency = max(1, value)
        }
        if let value = try extractionSlots ?? number(environment, "STENO_WORKER_EXTRACTION_SLOTS").map({ Int($0) }) {
            settings.extractionSlots = max(1, value)
        }
        if let value = try leaseSeconds ?? number(environment, "STENO_WORKER_LEASE_SECONDS") { settings.lease = .seconds(value) }
        if let value = try chunkSeconds ?? number(environment, "STENO_CHUNK_SECONDS") {
            settings.planner.targetDuration = MediaTime(value: Int64(value * 1000), timeBase: 1, 1000)
        }
        if let value = try graceSeconds ?? number(environment, "STENO_WORKER_GRACE_SECONDS") { settings.gracePeriod = .seconds(value) }
        if let value = try rescueSeconds ?? number(environment, "STENO_WORKER_RESCUE_SECONDS") { settings.rescueInterval = .seconds(value) }
        if let url = environment["STENO_WEBHOOK_URL"], !url.isEmpty { settings.webhookURL = url }
        if let value = try pollSeconds ?? number(environment, "STENO_WORKER_POLL_SECONDS") { settings.pollInterval = .seconds(value) }

        var backendEnvironment = environment
        // The merge aligns chunks on word times; ask for them unless told otherwise.
        if backendEnvironment["STENO_TIMESTAMP_GRANULARITIES"] == nil,
            (backendEnvironment["STENO_RESPONSE_FORMAT"] ?? "verbose_json") == "verbose_json"
        {
            backendEnvironment["STENO_TIMESTAMP_GRANULARITIES"] = "segment,word"
        }
        let transcription = try FallbackTranscriptionClient.fromEnvironment(backendEnvironment, logger: logger)
        let database = try PostgresConfiguration.fromEnvironment(environment, applicationName: "steno-worker")
        let client = PostgresClient(configuration: database, maxConnections: min(16, settings.concurrency + 3), logger: logger)
        return try WorkerRuntime(
            configuration: settings, database: database, client: client, transcription: transcription, logger: logger)
    }

    private func number(_ environment: [String: String], _ name: String) throws -> Double? {
        guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Double(text), value >= 0 else {
            throw ValidationError("\(name) must be a non-negative number, not \(text)")
        }
        return value
    }
}
