import Foundation
import Logging
public import ServiceLifecycle
public import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import Synchronization

/// One `LISTEN` session per server process, however many clients follow progress: the hub reads
/// each changed media's progress once and hands it to every subscriber of that media's tenant.
///
/// Notices that arrive together are read together (one statement per `batchDelay`). After the
/// listening session was lost and re-made, subscribers get `.resync`: changes in between were
/// missed, and a client reads the media it follows again.
public final class ProgressHub: Service, Sendable {
    public enum Event: Sendable {
        case progress(MediaProgress)
        /// Changes may have been missed (the listening session was re-made): read again.
        case resync
        /// Sent to everyone every `keepaliveInterval`, so that idle streams write something: a
        /// client that left is noticed, and proxies do not close a quiet connection.
        case keepalive
    }

    static let keepaliveInterval = Duration.seconds(15)

    /// What a subscriber gets: its tenant's changes. The buffer keeps the newest 1,024, so that a
    /// client that reads slowly falls behind without holding the others up.
    public struct Subscription: Sendable {
        public let events: AsyncStream<Event>
        let id: UUID
    }

    private struct Subscriber {
        var tenant: String
        var continuation: AsyncStream<Event>.Continuation
    }

    static let channels = ["steno_progress", JobStore.Channel.media]

    private let database: PostgresConfiguration
    private let store: AdminStore
    private let metrics: APIMetrics
    private let logger: Logger
    private let batchDelay: Duration
    private let subscribers = Mutex<[UUID: Subscriber]>([:])
    private let pending = Mutex<Set<Int64>>([])
    private let wake: Wakeup
    private let clock: any MonotonicClock

    init(
        database: PostgresConfiguration, store: AdminStore, metrics: APIMetrics, clock: any MonotonicClock = .continuous, logger: Logger,
        batchDelay: Duration = .milliseconds(100)
    ) {
        self.clock = clock
        wake = Wakeup(clock: clock)
        self.database = database
        self.store = store
        self.metrics = metrics
        self.logger = logger
        self.batchDelay = batchDelay
    }

    /// Follows the tenant's media until the subscription is dropped (`unsubscribe`).
    public func subscribe(tenant: String) -> Subscription {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        let count = subscribers.withLock { subscribers in
            subscribers[id] = Subscriber(tenant: tenant, continuation: continuation)
            return subscribers.count
        }
        metrics.setEventClients(count)
        return Subscription(events: stream, id: id)
    }

    public func unsubscribe(_ subscription: Subscription) {
        let (removed, count) = subscribers.withLock { subscribers in
            (subscribers.removeValue(forKey: subscription.id), subscribers.count)
        }
        removed?.continuation.finish()
        metrics.setEventClients(count)
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    public func run() async throws {
        let listener = try PostgresListener(configuration: database, channels: Self.channels, clock: clock, logger: logger)
        // On shutdown the streams end first (so that the HTTP server's open event responses
        // finish and it can stop), then the listening session closes.
        do {
            try await withGracefulShutdownHandler {
                try await cancelWhenGracefulShutdown {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await self.listen(listener) }
                        group.addTask { await self.publishLoop() }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } onGracefulShutdown: {
                self.finishAll()
            }
        } catch is CancellationError {
            finishAll()
        }
    }

    private func listen(_ listener: PostgresListener) async throws {
        let events = try await listener.events()
        for try await event in events {
            switch event {
            case let .notification(notice):
                guard let mediaID = Int64(notice.payload) else { continue }
                pending.withLock { _ = $0.insert(mediaID) }
                wake.wake()
            case .reconnected:
                broadcast(.resync, tenant: nil)
            }
        }
    }

    private func publishLoop() async {
        while !Task.isCancelled {
            if await wake.wait(timeout: Self.keepaliveInterval) == .timedOut {
                broadcast(.keepalive, tenant: nil)
                continue
            }
            try? await clock.sleep(for: batchDelay)
            let mediaIDs = pending.withLock { pending in
                defer { pending.removeAll() }
                return Array(pending)
            }
            guard !mediaIDs.isEmpty, subscriberCount > 0 else { continue }
            do {
                for (tenant, progress) in try await store.progressWithTenants(of: mediaIDs) {
                    broadcast(.progress(progress), tenant: tenant)
                }
            } catch {
                logger.warning("could not read the progress of changed media", metadata: ["error": "\(error)", "media": "\(mediaIDs.count)"])
                broadcast(.resync, tenant: nil)
            }
        }
    }

    /// To the tenant's subscribers; to all with `tenant` nil.
    private func broadcast(_ event: Event, tenant: String?) {
        subscribers.withLock { subscribers in
            for subscriber in subscribers.values where tenant == nil || subscriber.tenant == tenant {
                subscriber.continuation.yield(event)
            }
        }
    }

    private func finishAll() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
        metrics.setEventClients(0)
    }
}
