import Foundation
import Logging
import ServiceLifecycle
import StenoCore
import StenoMedia
import StenoPostgres
import StenoStore
import StenoTranscription
import StenoVoice
import Synchronization

/// One worker process: registers in `workers`, claims jobs in batches up to its concurrency,
/// wakes on `LISTEN steno_jobs`, keeps the leases of its jobs with one batched heartbeat, stops
/// jobs whose cancel flag is set or whose lease was lost, rescues expired leases of other
/// workers, and on graceful shutdown stops claiming, lets running jobs finish within the grace
/// period and hands the rest back to the queue.
///
/// The heartbeat (every quarter of the lease) is the only poll: its one statement also says
/// whether jobs are due (a retry's delay passed, a notification was missed), leases expired or
/// notices are due, and wakes the loop that acts on it. An idle worker sends nothing else.
public final class WorkerRuntime: Service, Sendable {
    public let configuration: WorkerConfiguration
    private let database: PostgresConfiguration
    private let client: PostgresClient
    private let store: WorkStore
    private let jobs: JobStore
    private let runner: JobRunner
    private let inFlight = InFlightJobs()
    /// When the grace period that began with SIGTERM ends.
    private let shutdownDeadline = Mutex<ContinuousClock.Instant?>(nil)
    private let pause = BackendPause()
    private let outages = KnownOutages()
    /// Chunk uploads in flight towards the backend, narrowed by timeouts (AIMD); `/metrics`.
    public let requests: AdaptiveLimiter
    /// The backend chunk jobs go to first, and whether its outages pause them (no fallback).
    private let primaryBackend: String
    private let outagesPause: Bool
    private let notifier: WebhookNotifier
    private let noticeWakeup = Wakeup()
    private let claimWakeup = Wakeup()
    private let heartbeatWakeup = Wakeup()
    private let draining = Atomic<Bool>(false)
    private let loopsStopped = Atomic<Bool>(false)
    private let rescueWakeup = Wakeup()
    let logger: Logger
    /// What `/metrics` shows.
    public let metrics: WorkerMetrics

    public init(
        configuration: WorkerConfiguration, database: PostgresConfiguration, client: PostgresClient,
        transcription: FallbackTranscriptionClient, voice: SileroModel?, metrics: WorkerMetrics = WorkerMetrics(), logger: Logger
    ) throws(ChunkPlannerError) {
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "worker.id"] = "\(configuration.workerID)"
        self.configuration = configuration
        self.database = database
        self.client = client
        self.logger = logger
        let store = WorkStore(client: client)
        let jobs = JobStore(client: client)
        self.store = store
        self.jobs = jobs
        self.notifier = WebhookNotifier(store: store, defaultURL: configuration.webhookURL, outbound: configuration.outbound, logger: logger)
        let outages = self.outages
        let requests = AdaptiveLimiter(maximum: configuration.concurrency)
        self.requests = requests
        self.primaryBackend = transcription.primary.configuration.name
        self.outagesPause = transcription.fallback == nil
        let planner = try ChunkPlanner(configuration: configuration.planner)
        let extraction = ExtractionLimiter(slots: configuration.extractionSlots)
        let handlers: [JobKind: any JobHandler] = [
            .media: MediaJobHandler(store: store, extraction: extraction, sourceTimeout: configuration.sourceTimeout),
            .chapter: ChapterJobHandler(store: store, extraction: extraction, planner: planner, voice: voice, sourceTimeout: configuration.sourceTimeout),
            .chunk: ChunkJobHandler(
                store: store, extraction: extraction, planner: planner, voice: voice, gate: voice == nil ? nil : configuration.gate, speedup: configuration.speedup,
                format: configuration.chunkFormat, transcription: transcription,
                metrics: metrics, outages: outages, requests: requests, sourceTimeout: configuration.sourceTimeout,
                answerWriteWindow: configuration.answerWriteWindow),
            .merge: MergeJobHandler(store: store),
        ]
        self.runner = JobRunner(
            handlers: handlers, store: store, configuration: configuration, inFlight: inFlight, pause: pause,
            outages: outages, outagesPause: transcription.fallback == nil, requests: requests, metrics: metrics, logger: logger)
    }

    /// Jobs running right now.
    public var jobsInFlight: Int { inFlight.count }

    public func run() async throws {
        MediaMemory.keepLargeBlocksOutOfTheHeap()
        let livenessKey = try await registerOnceMigrated()
        if Task.isShuttingDownGracefully { return }
        logger.info("worker started", metadata: [
            "concurrency": "\(configuration.concurrency)", "extraction_slots": "\(configuration.extractionSlots)",
            "lease_seconds": "\(configuration.lease.seconds)",
        ])
        // The listening session also holds this process's liveness lock, taken before the first
        // claim: when the process dies, the session ends, the lock is free, and the fleet takes
        // its jobs back at once (`RescuePolicy`).
        let listener = try PostgresListener(
            configuration: database, channels: [JobStore.Channel.jobs, JobStore.Channel.cancel, JobStore.Channel.media],
            sessionLock: .init(namespace: RescuePolicy.lockNamespace, key: livenessKey, whenTaken: JobStore.lockTaken(worker: configuration.workerID)),
            logger: logger)
        let events = try await listener.events()
        await withGracefulShutdownHandler {
            // The listener holds a connection of its own and is stopped by cancelling it; the
            // other loops use the shared pool and are told to stop instead, so that none is
            // cancelled in the middle of a transaction.
            let listening = Task { await self.listen(events) }
            // The loops that talk mostly to the database run on its client's threads, where a
            // statement costs no hop off Swift's cooperative pool and back; the jobs do not.
            let loops = [
                Task { await self.client.onDatabaseThreads { await self.keepLeases() } },
                Task { await self.client.onDatabaseThreads { await self.rescueLoop() } },
                Task { await self.noticeLoop() },
            ]
            // Discarding: a plain task group keeps every finished job's task until its result is
            // read, which the claim loop never does; a worker grew by about 10 KB a job that way.
            await withDiscardingTaskGroup { group in
                await self.client.onDatabaseThreads { await self.claimLoop(&group) }
                await self.drain()
                // Jobs still writing their outcome to a database that is away would hold the
                // shutdown for the database's whole reconnect window: their leases expire instead.
                if self.inFlight.count > 0 { group.cancelAll() }
            }
            self.loopsStopped.store(true, ordering: .releasing)
            [self.claimWakeup, self.rescueWakeup].forEach { $0.cancelScheduledWake() }
            self.heartbeatWakeup.wake()
            self.rescueWakeup.wake()
            self.noticeWakeup.wake()
            await Self.finish(loops, within: Self.loopStopLimit)
            listening.cancel()
            await listening.value
        } onGracefulShutdown: {
            let deadline = ContinuousClock.now + self.configuration.gracePeriod
            self.shutdownDeadline.withLock { $0 = $0 ?? deadline }
            self.draining.store(true, ordering: .releasing)
            self.claimWakeup.wake()
        }
        // In a task of its own, so that it runs even when the service group cancelled this one:
        // operators must see the worker stopped, not a heartbeat going stale.
        // Bounded, so that a database that is away cannot hold the exit.
        let store = store
        let workerID = configuration.workerID
        let deregistering = Task { try await store.deregister(workerID: workerID) }
        let marked = Mutex<Result<Void, any Error>?>(nil)
        // What the drain left of the grace period, and at least `deregisterLimit`: a worker
        // stopped just after a database restart waits for its pool to reconnect first.
        let limit = max(Self.deregisterLimit, shutdownDeadline.withLock { $0 }.map { $0 - ContinuousClock.now } ?? .zero)
        await Self.finish([Task { let result = await deregistering.result; marked.withLock { $0 = result } }], within: limit) {
            deregistering.cancel()
        }
        switch marked.withLock({ $0 }) {
        case .failure(let error)?: logger.error("could not mark the worker stopped", metadata: ["error": "\(error)"])
        case nil: logger.error("could not mark the worker stopped within \(limit): the database did not answer")
        case .success?: break
        }
        logger.info("worker stopped")
    }

    /// How long the heartbeat, rescue and notice loops may take to stop after the drain, and the
    /// final `stopped` write may take: a database that is away cannot hold the exit longer.
    static let loopStopLimit = Duration.seconds(1)
    /// The least time the final `stopped` write gets; it also gets what the drain left of the
    /// grace period (after a database restart the pool may take several seconds to reconnect:
    /// the container test's row stayed `running` with 2 s and with 5 s).
    static let deregisterLimit = Duration.seconds(2)

    /// Waits for `tasks` up to `limit`; then cancels them (and calls `onTimeout`) and returns
    /// without waiting further: a statement stuck on a database that is away may take its
    /// reconnect backoff to notice the cancel, and the process is exiting anyway.
    private static func finish(_ tasks: [Task<Void, Never>], within limit: Duration, onTimeout: @escaping @Sendable () -> Void = {}) async {
        let resumed = Mutex(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            let watchdog = Task {
                try? await Task.sleep(for: limit)
                if Task.isCancelled { return }
                tasks.forEach { $0.cancel() }
                onTimeout()
                resumeOnce()
            }
            Task {
                for task in tasks { await task.value }
                watchdog.cancel()
                resumeOnce()
            }
        }
    }

    /// Adds this worker's row. A worker started beside a new database (compose, a Kubernetes
    /// rollout) can come up before `steno migrate` has made the schema, or brought it up to this
    /// release's migration: it waits for it, within the database wait
    /// (`STENO_DATABASE_WAIT_SECONDS`), saying so once.
    private func registerOnceMigrated() async throws -> Int32 {
        let deadline = ContinuousClock.now + database.reconnectWindow
        var said = false
        while !Task.isShuttingDownGracefully {
            let applied = try await StenoSchema.appliedMigration(client)
            if let applied, applied >= StenoSchema.requiredMigration {
                let key = try await store.register(
                    workerID: configuration.workerID, hostname: ProcessInfo.processInfo.hostName,
                    pid: Int(ProcessInfo.processInfo.processIdentifier), version: configuration.version)
                if said { logger.info("the schema is there; starting", metadata: ["migration": "\(applied)"]) }
                return key
            }
            let found = applied.map { "the database is at migration \($0)" } ?? "the database has no Steno schema"
            guard ContinuousClock.now < deadline else {
                throw WorkerError(
                    .schemaMissing, .configuration,
                    "\(found) after waiting \(Int(database.reconnectWindow.seconds)) s; this worker needs migration \(StenoSchema.requiredMigration): run `steno migrate` first")
            }
            if !said {
                logger.info("waiting for the schema: \(found), this worker needs migration \(StenoSchema.requiredMigration) (run `steno migrate`)")
                said = true
            }
            try? await Task.sleep(for: .seconds(1))
        }
        throw CancellationError()
    }

    /// Claims while there is room, starting each job as a child task, until shutdown.
    private func claimLoop(_ group: inout DiscardingTaskGroup) async {
        while !isDraining && !Task.isCancelled {
            // A job that must run alone has the worker to itself.
            let room = inFlight.runsAlone ? 0 : configuration.concurrency - inFlight.count
            var claimed: [Job] = []
            if room > 0 {
                do {
                    claimed = try await claim(room: room)
                } catch {
                    logger.warning("could not claim jobs", metadata: ["error": "\(error)"])
                }
            }
            for job in claimed {
                guard let lease = job.lease else { continue }
                let signal = CancellationSignal()
                let answerHold = AnswerHold()
                inFlight.insert(job, lease: lease, signal: signal, answerHold: answerHold)
                if job.runsAlone {
                    logger.warning("running a job alone: it was running each time its worker died", metadata: [
                        "job.id": "\(job.id)", "job.kind": "\(job.kind.rawValue)", "crash_rescues": "\(job.crashRescues)",
                    ])
                }
                group.addTask(executorPreference: globalConcurrentExecutor) {
                    await self.runner.run(job, lease: lease, signal: signal, answerHold: answerHold)
                    self.inFlight.remove(job.id)
                    MediaMemory.returnFreePages()
                    self.claimWakeup.wake()
                }
            }
            // A full batch may mean more is waiting: claim again at once while there is room.
            // Otherwise wait for a `NOTIFY`, a finished job, or a heartbeat that saw jobs due.
            if claimed.isEmpty || inFlight.count >= configuration.concurrency {
                await claimWakeup.wait(timeout: nil)
            }
        }
    }

    /// Claims up to `room` jobs. While the primary backend is down, chunk jobs wait, except the
    /// one chunk job of a probe when it is due and this worker takes it.
    private func claim(room: Int) async throws -> [Job] {
        let worker = configuration.workerID
        let others: [JobKind] = [.media, .chapter, .merge]
        let outage = outagesPause ? outages.outage(of: primaryBackend) : nil
        // A worker with nothing in flight first looks for a job that must run alone (never a
        // chunk job while chunk jobs are held back, not even as an outage's probe).
        if inFlight.count == 0,
            let alone = try await jobs.claimAlone(
                worker: worker, lease: configuration.lease, kinds: pause.isPaused || outage != nil ? others : nil)
        {
            return [alone]
        }
        if pause.isPaused {
            return try await jobs.claim(limit: room, worker: worker, lease: configuration.lease, kinds: others)
        }
        guard let outage else {
            return try await jobs.claim(limit: room, worker: worker, lease: configuration.lease, kinds: nil)
        }
        var claimed: [Job] = []
        if outage.probeAt <= Date(), try await store.takeProbe(backend: primaryBackend) {
            claimed = try await jobs.claim(limit: 1, worker: worker, lease: configuration.lease, kinds: [.chunk])
            if !claimed.isEmpty {
                logger.info("probing a backend that is down with one chunk job", metadata: ["backend": "\(primaryBackend)"])
            }
        }
        if room > claimed.count {
            claimed += try await jobs.claim(limit: room - claimed.count, worker: worker, lease: configuration.lease, kinds: others)
        }
        return claimed
    }

    /// After shutdown began: waits up to the grace period for running jobs, then stops the rest,
    /// which hand themselves back to the queue, and releases any that did not, all within 5 s
    /// more, a database restart included: a shutdown ends within the grace period plus about 10 s
    /// (with `loopStopLimit` and `deregisterLimit`), whatever the database does.
    private func drain() async {
        let deadline = ContinuousClock.now + configuration.gracePeriod
        if inFlight.count > 0 {
            logger.info("shutting down; waiting for running jobs", metadata: ["jobs": "\(inFlight.count)"])
        }
        // A cancelled task (the service group gave up on us) cannot wait: hand everything back now.
        while inFlight.count > 0 && ContinuousClock.now < deadline && !Task.isCancelled {
            await claimWakeup.wait(timeout: .milliseconds(100))
        }
        guard inFlight.count > 0 else { return }
        inFlight.stopAll(.shutdown)
        let handBack = ContinuousClock.now + .seconds(5)
        while inFlight.count > 0 && ContinuousClock.now < handBack && !Task.isCancelled {
            await claimWakeup.wait(timeout: .milliseconds(50))
        }
        // Handed back while the time allows, also across a database restart; what is left
        // waits out its lease (a few seconds) and is rescued by the fleet.
        var left = inFlight.leases
        let releaseDeadline = handBack
        while !left.isEmpty && ContinuousClock.now < releaseDeadline {
            let leases = left
            let attempt = Task { [store] in try await store.end(leases, as: .released) }
            let watchdog = Task { try await Task.sleep(until: releaseDeadline); attempt.cancel() }
            let outcome = await attempt.result
            watchdog.cancel()
            if case .success = outcome { break }
            try? await Task.sleep(for: .milliseconds(250))
            left = inFlight.leases
        }
    }

    /// Follows `steno_jobs` (wake the claim loop) and `steno_cancel` (check flags at once).
    private func listen(_ events: AsyncThrowingStream<PostgresListener.Event, any Error>) async {
        do {
            for try await event in events {
                switch event {
                case .notification(let notification) where notification.channel == JobStore.Channel.jobs:
                    claimWakeup.wake()
                case .notification(let notification) where notification.channel == JobStore.Channel.cancel:
                    if notification.payload == configuration.workerID { heartbeatWakeup.wake() }
                case .notification(let notification) where notification.channel == JobStore.Channel.media:
                    noticeWakeup.wake()
                case .notification:
                    break
                case .reconnected:
                    claimWakeup.wake()
                    heartbeatWakeup.wake()
                    noticeWakeup.wake()
                }
            }
        } catch {
            logger.warning("stopped listening for notifications; polling only", metadata: ["error": "\(error)"])
        }
    }

    /// Extends every running job's lease in one statement, stops jobs whose flag is set or whose
    /// lease was lost, and renews the worker's own row.
    private func keepLeases() async {
        while !areLoopsStopped {
            let leases = inFlight.leases
            let beatStarted = ContinuousClock.now
            do {
                let results = try await jobs.heartbeat(leases, extendBy: configuration.lease)
                for (lease, result) in results {
                    switch result {
                    case .held(cancelRequested: true): inFlight.stop(lease.jobID, .cancelRequested)
                    case .held(cancelRequested: false): inFlight.renewed(lease.jobID, at: beatStarted)
                    case .lost: inFlight.stop(lease.jobID, .leaseLost)
                    }
                }
                // The pause shown is the one known before this beat; the beat brings the fleet's
                // outages for the next claim and the next beat.
                var paused = pause.active()
                var message = paused.isEmpty ? nil : "chunk jobs paused: backend \(paused.keys.sorted().joined(separator: ", ")) rejected the configuration"
                if outagesPause, let outage = outages.outage(of: primaryBackend) {
                    paused[outage.backend] = max(paused[outage.backend] ?? outage.probeAt, outage.probeAt)
                    message = "chunk jobs paused: backend \(outage.backend) is down since \(Self.clock(outage.since)) (\(outage.reason)); "
                        + "\(outage.failures) failures, next probe at \(Self.clock(outage.probeAt))"
                }
                let status = WorkerState.reported(draining: isDraining, pausedBackends: paused.count)
                let beat = try await store.heartbeatWorker(
                    workerID: configuration.workerID, status: status, message: message, jobsInFlight: inFlight.count, pausedBackends: paused,
                    running: leases.map(\.jobID), webhookURL: configuration.webhookURL, noticesBackingOff: notifier.backingOff,
                    rescue: configuration.rescue,
                    requests: .init(backend: primaryBackend, limit: requests.limit, inFlight: requests.inFlight))
                if outagesPause { outages.replace(with: beat.outages) }
                act(on: beat.due)
            } catch {
                logger.warning("heartbeat failed", metadata: ["error": "\(error)"])
            }
            await heartbeatWakeup.wait(timeout: configuration.heartbeatInterval)
        }
    }

    /// Wakes the loops that have something to do, now or when it falls due before the next
    /// heartbeat: the heartbeat is the worker's only poll.
    private func act(on due: WorkStore.DueWork) {
        let wakes = due.wakes(
            beforeNextBeat: configuration.heartbeatInterval.seconds, chunkJobsClaimable: chunkJobsClaimable, draining: isDraining)
        if let seconds = wakes.rescueIn { rescueWakeup.wake(after: .seconds(seconds)) }
        if let seconds = wakes.claimIn { claimWakeup.wake(after: .seconds(seconds)) }
        if wakes.notices { noticeWakeup.wake() }
    }

    /// Whether a claim may take chunk jobs now: not while the backend is paused or down, unless
    /// a probe is due.
    private var chunkJobsClaimable: Bool {
        if pause.isPaused { return false }
        guard outagesPause, let outage = outages.outage(of: primaryBackend) else { return true }
        return outage.probeAt <= Date()
    }

    /// Takes back the jobs of workers that died or stopped renewing their leases, when a heartbeat saw some due.
    private func rescueLoop() async {
        // Only when a heartbeat saw a rescue due, the first one included: a worker that starts
        // waits out the confirmation of a death like any other (`RescuePolicy.confirmDelay`).
        while !areLoopsStopped {
            await rescueWakeup.wait(timeout: nil)
            if areLoopsStopped { break }
            do {
                let rescued = try await store.rescueExpired(
                    sparing: configuration.workerID, running: inFlight.leases.map(\.jobID), policy: configuration.rescue)
                if !rescued.isEmpty {
                    logger.warning("took back the jobs of workers that died or stopped renewing their leases", metadata: [
                        "jobs": "\(rescued.map(\.id))", "previous_owners": "\(Set(rescued.map(\.worker)).sorted())",
                    ])
                }
            } catch {
                logger.warning("rescue failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Delivers completion webhooks when a media finishes (`NOTIFY steno_media`), and when a
    /// heartbeat sees one due (a failed delivery's retry, a notice missed while listening failed).
    private func noticeLoop() async {
        while !areLoopsStopped {
            await notifier.deliverDue()
            await noticeWakeup.wait(timeout: nil)
        }
    }

    /// Whether the database answers a trivial query within two seconds.
    func databaseReachable() async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await self.client.query("SELECT 1")) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(2))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// The helper loops end at shutdown, or when the task is cancelled (the service group gave up).
    private var areLoopsStopped: Bool { loopsStopped.load(ordering: .acquiring) || Task.isCancelled }

    private static func clock(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withTime, .withColonSeparatorInTime]
        return formatter.string(from: date) + " UTC"
    }
}
