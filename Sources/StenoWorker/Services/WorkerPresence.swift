import Foundation
import Logging
import ServiceLifecycle
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore

/// The worker as the fleet sees it: its row in `workers` (added once the schema is there, marked
/// stopped last of all), and the listening session, which holds the worker's liveness lock and
/// turns notifications into wakes. First in the service group, so it stops last: the lock is held
/// until every job has been handed back or finished.
struct WorkerPresence: Service {
    let configuration: WorkerConfiguration
    let database: PostgresConfiguration
    let client: PostgresClient
    let store: WorkStore
    let signals: WorkerSignals
    let logger: Logger

    func run() async throws {
        // A worker told to stop while it starts (waiting for the database, its schema or its
        // listening session) stops then, as one with no job would; only the group's limit would
        // end those waits otherwise.
        let livenessKey: Int32
        do {
            guard let key = try await cancelWhenGracefulShutdown({ try await registerOnceMigrated() }) else { return }
            livenessKey = key
        } catch where Task.isShuttingDownGracefully {
            logger.info("stopped before it had started")
            return
        }
        // Taken before the first claim: when the process dies, the session ends, the lock is
        // free, and the fleet takes the worker's jobs back at once (`RescuePolicy`).
        let listener = try PostgresListener(
            configuration: database, channels: [JobStore.Channel.jobs, JobStore.Channel.cancel, JobStore.Channel.media],
            sessionLock: .init(namespace: RescuePolicy.lockNamespace, key: livenessKey, whenTaken: JobStore.lockTaken(worker: configuration.workerID)),
            clock: signals.clock, logger: logger)
        let events: AsyncThrowingStream<PostgresListener.Event, any Error>
        do {
            events = try await cancelWhenGracefulShutdown { try await listener.events() }
        } catch where Task.isShuttingDownGracefully {
            await deregister()
            return
        }
        logger.info("worker started", metadata: [
            "concurrency": "\(configuration.concurrency)", "extraction_slots": "\(configuration.extractionSlots)",
            "lease_seconds": "\(configuration.lease.seconds)",
        ])
        signals.present.open()
        // Cancelled at this service's turn to stop, which closes the listening session. A listener
        // that gave up (logged) leaves the worker polling with its heartbeat, still present.
        await cancelWhenGracefulShutdown { await listen(events) }
        try? await gracefulShutdown()
        await deregister()
    }

    /// Marks the row stopped: the last statement of the worker. It waits for the database at
    /// most `deregisterWait`: the row is what `steno workers` shows, and the fleet already knows
    /// the worker is gone when its listening session (its liveness lock) ends. Waiting out the
    /// database's absence here kept a worker with nothing to hand back alive to the group's
    /// shutdown limit (27 s by default) after a SIGTERM.
    private func deregister() async {
        let ended = await withTaskGroup(of: (any Error)??.self) { group in
            group.addTask {
                do {
                    try await store.deregister(workerID: configuration.workerID)
                    return .some(nil)
                } catch {
                    return .some(error)
                }
            }
            group.addTask { [signals] in
                try? await signals.clock.sleep(for: Self.deregisterWait)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch ended {
        case .some(nil): logger.info("worker stopped")
        case .some(let error?): logger.error("could not mark the worker stopped", metadata: ["error": "\(error)"])
        case nil:
            logger.warning("could not mark the worker stopped within \(Int(Self.deregisterWait.seconds)) s: the database is away; the fleet sees the worker gone by its ended session")
        }
    }

    static let deregisterWait = Duration.seconds(3)

    /// Adds this worker's row and returns its liveness key, or nil if shutdown came first. A
    /// worker started beside a new database (compose, a Kubernetes rollout) can come up before
    /// `steno migrate` has made the schema, or brought it up to this release's migration: it
    /// waits for it, within the database wait (`STENO_DATABASE_WAIT_SECONDS`), saying so once.
    private func registerOnceMigrated() async throws -> Int32? {
        let clock = signals.clock
        let deadline = clock.now + database.reconnectWindow
        var said = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let applied = try await StenoSchema.appliedMigration(client)
            if let applied, applied >= StenoSchema.requiredMigration {
                let key = try await store.register(
                    workerID: configuration.workerID, hostname: ProcessInfo.processInfo.hostName,
                    pid: Int(ProcessInfo.processInfo.processIdentifier), version: configuration.version,
                    supervisorKey: configuration.supervisorKey)
                if said { logger.info("the schema is there; starting", metadata: ["migration": "\(applied)"]) }
                return key
            }
            let found = applied.map { "the database is at migration \($0)" } ?? "the database has no Steno schema"
            guard clock.now < deadline else {
                throw WorkerError(
                    .schemaMissing, .configuration,
                    "\(found) after waiting \(Int(database.reconnectWindow.seconds)) s; this worker needs migration \(StenoSchema.requiredMigration): run `steno migrate` first")
            }
            if !said {
                logger.info("waiting for the schema: \(found), this worker needs migration \(StenoSchema.requiredMigration) (run `steno migrate`)")
                said = true
            }
            try? await clock.sleep(for: .seconds(1))
        }
        return nil
    }

    /// Follows `steno_jobs` (wake the claimer), `steno_cancel` (check flags at once) and
    /// `steno_media` (deliver webhooks).
    private func listen(_ events: AsyncThrowingStream<PostgresListener.Event, any Error>) async {
        do {
            for try await event in events {
                switch event {
                case .notification(let notification) where notification.channel == JobStore.Channel.jobs:
                    signals.claim.wake()
                case .notification(let notification) where notification.channel == JobStore.Channel.cancel:
                    if notification.payload == configuration.workerID { signals.heartbeat.wake() }
                case .notification(let notification) where notification.channel == JobStore.Channel.media:
                    signals.notices.wake()
                case .notification:
                    break
                case .reconnected:
                    signals.claim.wake()
                    signals.heartbeat.wake()
                    signals.notices.wake()
                }
            }
        } catch {
            logger.warning("stopped listening for notifications; polling only", metadata: ["error": "\(error)"])
        }
    }
}
