public import Logging
public import StenoCore
public import StenoInfrastructure
public import StenoPostgres
public import StenoStore
public import StenoTranscription
import Synchronization

/// Keeps the fleet under each backend's rate limit through PostgreSQL (`backend_rate_limits`).
///
/// Within a worker, requests to one backend wait in line and only the first asks the database,
/// so a fleet of many workers with many jobs waiting polls it once per worker per refill, not
/// once per job. A request whose job is cancelled leaves the line at once. When the database
/// cannot be asked, the request goes ahead: the limit is the fleet's courtesy to the backend,
/// and its 429s are still classified and retried as before.
public final class FleetRateGate: TranscriptionRequestGate {
    private let store: WorkStore
    private let metrics: WorkerMetrics
    private let logger: Logger
    private let lines = Mutex<[String: ResourcePool<Int>]>([:])
    private let clock: any MonotonicClock
    /// The longest single sleep before asking again: a limit raised meanwhile takes effect soon.
    static let longestSleep = Duration.seconds(30)

    /// `time` is what the bucket's statements take for now: the database's, in production; a
    /// test gives its clock's, so that the bucket refills as the test moves the clock.
    public init(
        client: PostgresClient, metrics: WorkerMetrics, clock: any MonotonicClock = .continuous, time: StatementTime = .database, logger: Logger
    ) {
        self.store = WorkStore(client: client, time: time)
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    public func admit(backend: String, limit: RateLimit, audioSeconds: Double, cancellation: CancellationSignal) async throws(TranscriptionError) {
        let line = lines.withLock { lines in
            if let line = lines[backend] { return line }
            let line = ResourcePool<Int>(capacity: 1) { 0 }
            lines[backend] = line
            return line
        }
        let turn = Turn()
        let task = Task { [self] in
            defer { turn.settled.open() }
            try await line.withResource { _ in try await self.wait(backend: backend, limit: limit, audioSeconds: audioSeconds, cancellation: cancellation) }
            turn.grant()
        }
        // A cancelled job leaves at once. Its turn is cancelled and ends on its own: a statement
        // in flight is cancelled on the server (a request on a connection of its own) and rolled
        // back, round trips a loaded machine stretches (a cancel took 0.67 s in CI when admit
        // waited for them). A token that statement still takes goes unused, which errs on the
        // side of the limit.
        let registration = cancellation.onCancel { task.cancel(); turn.settled.open() }
        defer { cancellation.removeHandler(registration) }
        _ = await turn.settled.wait()
        // A turn that took its token is sent, even if the job was cancelled meanwhile: the
        // client checks cancellation again before the request.
        guard !turn.isGranted else { return }
        task.cancel()
        throw TranscriptionError(.cancelled, .cancelled, "the transcription was cancelled while it waited for the backend's rate limit", backend: backend)
    }

    /// One request's turn in its backend's line: settled when it is granted (or let through
    /// because the database cannot be asked), when it ends cancelled, or when its job is cancelled.
    private final class Turn: Sendable {
        let settled = Latch()
        private let granted = Atomic<Bool>(false)

        var isGranted: Bool { granted.load(ordering: .acquiring) }
        func grant() { granted.store(true, ordering: .releasing) }
    }

    private func wait(backend: String, limit: RateLimit, audioSeconds: Double, cancellation: CancellationSignal) async throws {
        var waitedSince: ContinuousClock.Instant?
        while true {
            if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
            let decision: TokenBucket.Decision
            do {
                decision = try await store.takeRateToken(backend: backend, limit: limit, audioSeconds: audioSeconds)
            } catch {
                // A cancelled job must not be sent; only a database that cannot answer lets it through.
                if cancellation.isCancelled || Task.isCancelled { throw CancellationError() }
                logger.warning("could not consult the fleet's rate limit; sending without it", metadata: [
                    "backend": "\(backend)", "error": "\(error)",
                ])
                return
            }
            switch decision {
            case .granted:
                if let waitedSince { metrics.recordRateLimitWait(backend: backend, seconds: (clock.now - waitedSince).seconds) }
                return
            case .wait(let seconds):
                if waitedSince == nil {
                    waitedSince = clock.now
                    logger.debug("waiting for the backend's rate limit", metadata: [
                        "backend": "\(backend)", "limit": "\(limit.summary)", "wait_seconds": "\(seconds)",
                    ])
                }
                // A little past the refill, so that the token is there when asked for.
                let sleep = min(Duration.milliseconds(Int64(seconds * 1000) + 20), Self.longestSleep)
                guard await cancellation.sleep(for: sleep, clock: clock) else { throw CancellationError() }
            }
        }
    }
}
