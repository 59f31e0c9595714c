import Foundation
public import Logging
public import ServiceLifecycle
public import StenoCore
public import StenoInfrastructure
import StenoMedia
public import StenoPostgres
public import StenoSpeech
import StenoStore
public import StenoTranscription
public import StenoVoice

/// One worker process, as a service group of four services with one job each:
///
/// 1. `WorkerPresence`: the worker's row, and the listening session that holds its liveness lock;
/// 2. `NoticeDelivery`: completion webhooks;
/// 3. `LeaseKeeper`: the heartbeat that keeps leases and polls for due work, and rescue;
/// 4. `JobClaimer`: claims and runs jobs.
///
/// The group starts them in that order and stops them in the reverse one, each after the one
/// after it has finished: the claimer drains first while leases are still kept, and the worker
/// is marked stopped, and its lock given up, last. `BackendAvailability` says which job kinds
/// may be claimed, for the claimer, the heartbeat and the jobs alike.
public final class WorkerRuntime: Service, Sendable {
    public let configuration: WorkerConfiguration
    /// Chunk uploads in flight towards the backend, narrowed by timeouts (AIMD); `/metrics`.
    public let requests: AdaptiveLimiter
    /// What `/metrics` shows.
    public let metrics: WorkerMetrics
    let logger: Logger
    private let client: PostgresClient
    private let inFlight: InFlightJobs
    private let clock: any MonotonicClock
    private let makeServices: @Sendable () -> [any Service]

    public init(
        configuration: WorkerConfiguration, database: PostgresConfiguration, client: PostgresClient,
        transcription: FallbackTranscriptionClient, voice: SileroModel?, speakers: SpeakerPass? = nil, aligner: TextAligner? = nil,
        metrics: WorkerMetrics = WorkerMetrics(),
        clock: any MonotonicClock = .continuous, logger: Logger
    ) throws(ChunkPlannerError) {
        var tagged = logger
        tagged[metadataKey: "worker.id"] = "\(configuration.workerID)"
        let logger = tagged
        let store = WorkStore(client: client)
        let jobs = JobStore(client: client)
        let requests = AdaptiveLimiter(maximum: configuration.concurrency)
        let availability = BackendAvailability(
            primary: transcription.primary.configuration.name, outagesPause: transcription.fallback == nil, clock: clock)
        let planner = try ChunkPlanner(configuration: configuration.planner)
        let extraction = ExtractionLimiter(slots: configuration.extractionSlots)
        let chunks = ChunkJobHandler(
            store: store, extraction: extraction, planner: planner, voice: voice, gate: voice == nil ? nil : configuration.gate,
            coverage: voice == nil ? nil : configuration.coverage.map {
                var coverage = $0
                // The neighbouring chunk hears the overlap at a cut inside speech.
                coverage.sharedEdge = configuration.planner.overlap.seconds
                return coverage
            },
            speedup: configuration.speedup, format: configuration.chunkFormat, transcription: transcription, metrics: metrics,
            availability: availability, requests: requests, sourceTimeout: configuration.sourceTimeout, sources: configuration.mediaSources,
            answerWriteWindow: configuration.answerWriteWindow, rescue: configuration.rescue, speakers: speakers, aligner: aligner)
        let handlers: [JobKind: any JobHandler] = [
            .media: MediaJobHandler(store: store, extraction: extraction, sourceTimeout: configuration.sourceTimeout, sources: configuration.mediaSources),
            .chapter: ChapterJobHandler(
                store: store, extraction: extraction, planner: planner, voice: voice, sourceTimeout: configuration.sourceTimeout,
                sources: configuration.mediaSources),
            .chunk: chunks,
            .merge: MergeJobHandler(store: store, retake: { chunkID, language, context in try await chunks.retake(chunkID, in: language, context) }),
        ]
        let inFlight = InFlightJobs(clock: clock)
        self.inFlight = inFlight
        self.clock = clock
        let runner = JobRunner(
            handlers: handlers, store: store, configuration: configuration, inFlight: inFlight, availability: availability,
            requests: requests, metrics: metrics, logger: logger)
        let notifier = WebhookNotifier(
            store: store, defaultURL: configuration.webhookURL, outbound: configuration.outbound, clock: clock, logger: logger)
        self.configuration = configuration
        self.requests = requests
        self.metrics = metrics
        self.logger = logger
        self.client = client
        // Made for each run: a service group runs once.
        self.makeServices = {
            let signals = WorkerSignals(clock: clock)
            return [
                WorkerPresence(configuration: configuration, database: database, client: client, store: store, signals: signals, logger: logger),
                NoticeDelivery(notifier: notifier, signals: signals),
                LeaseKeeper(
                    configuration: configuration, client: client, store: store, jobs: jobs, inFlight: inFlight, availability: availability,
                    requests: requests, notifier: notifier, signals: signals, logger: logger),
                JobClaimer(
                    configuration: configuration, client: client, store: store, jobs: jobs, runner: runner, inFlight: inFlight,
                    availability: availability, signals: signals, logger: logger),
            ]
        }
    }

    /// Jobs running right now.
    public var jobsInFlight: Int { inFlight.count }

    public func run() async throws {
        MediaMemory.keepLargeBlocksOutOfTheHeap()
        var group = ServiceGroupConfiguration(services: makeServices(), logger: logger)
        group.maximumGracefulShutdownDuration = Self.shutdownLimit(grace: configuration.gracePeriod)
        try await ServiceGroup(configuration: group).run()
    }

    /// How long a graceful shutdown may take before the group cancels what is left: the grace
    /// period for running jobs, the claimer's hand-back, and 2 s more for the last statements
    /// (the `stopped` mark gets at least those, and what the drain left), so a database that is
    /// away cannot hold the exit longer.
    static func shutdownLimit(grace: Duration) -> Duration {
        grace + JobClaimer.handBackLimit + .seconds(2)
    }

    /// Whether the database answers a trivial query within two seconds.
    func databaseReachable() async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await self.client.query("SELECT 1")) != nil }
            group.addTask {
                try? await self.clock.sleep(for: .seconds(2))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
