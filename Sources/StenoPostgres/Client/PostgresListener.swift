public import Logging
public import StenoInfrastructure

/// Follows `LISTEN` channels on a connection of its own.
///
/// When the connection breaks it reconnects with backoff, listens again and yields
/// `.reconnected`: notifications sent in between are lost, so a consumer should poll once.
/// With a `sessionLock`, its session also holds that advisory lock (the two-key form) for as
/// long as it lives, and takes it again in each new session: others read from `pg_locks`
/// that the process is alive. A lock another session still holds (this process's previous
/// session, not yet ended on the server) is tried again at every poll until it is taken.
public final class PostgresListener: Sendable {
    public enum Event: Sendable, Equatable {
        case notification(PostgresNotification)
        /// The session was re-established; anything sent meanwhile was missed.
        case reconnected
    }

    /// An advisory lock: `pg_locks.classid` and `objid` of the two-key form, and a statement
    /// the session runs each time it took the lock (to record when).
    public struct SessionLock: Sendable {
        public var namespace: Int32
        public var key: Int32
        public var whenTaken: PostgresQuery?

        public init(namespace: Int32, key: Int32, whenTaken: PostgresQuery? = nil) {
            self.namespace = namespace
            self.key = key
            self.whenTaken = whenTaken
        }
    }

    public let channels: [String]
    public let sessionLock: SessionLock?
    private let connection: PostgresConnection
    private let logger: Logger
    /// What the waits between reconnection attempts go by.
    private let clock: any MonotonicClock

    public init(
        configuration: PostgresConfiguration, channels: [String], sessionLock: SessionLock? = nil,
        clock: any MonotonicClock = .continuous, logger: Logger = Logger(label: "steno.postgres.listener")
    ) throws(PostgresError) {
        for channel in channels where !Self.isValidChannel(channel) {
            throw PostgresError(.invalidConfiguration, "channel name \(channel) must be lowercase letters, digits and underscores")
        }
        self.channels = channels
        self.sessionLock = sessionLock
        // A session of its own, never through a pooler in transaction mode: it must keep its LISTEN and its lock.
        self.connection = PostgresConnection(configuration: configuration.direct, logger: logger)
        self.logger = logger
        self.clock = clock
    }

    /// Listens until the consuming task stops iterating. The first event arrives only after
    /// `LISTEN` has taken effect, so nothing sent after `ready` returns is missed.
    public func events(pollInterval: Duration = .milliseconds(250)) async throws -> AsyncThrowingStream<Event, any Error> {
        var listeningGeneration = try await listen()
        var locked = try await takeLock(warn: true)
        let (stream, continuation) = AsyncThrowingStream<Event, any Error>.makeStream()
        let task = Task { [connection, logger, clock] in
            var failureDelay = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    let generation = try await connection.sessionGeneration
                    if generation != listeningGeneration {
                        listeningGeneration = try await listen()
                        locked = try await self.takeLock(warn: true)
                        continuation.yield(.reconnected)
                    } else if !locked {
                        locked = try await self.takeLock(warn: false)
                    }
                    // On the listening session only: a session the wait would open in its place
                    // (the old one found ended between two waits) listens to nothing.
                    for notification in try await connection.waitForNotifications(timeout: pollInterval, session: listeningGeneration) {
                        continuation.yield(.notification(notification))
                    }
                    failureDelay = .milliseconds(100)
                } catch let error as PostgresError where error.code == .cancelled {
                    break
                } catch {
                    logger.warning("listener lost its database connection; reconnecting", metadata: ["error": "\(error)"])
                    try? await clock.sleep(for: failureDelay)
                    failureDelay = min(failureDelay * 2, .seconds(5))
                }
            }
            continuation.finish()
            await connection.close()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Tries the session lock; true when this session holds it (or there is none to hold).
    private func takeLock(warn: Bool) async throws(PostgresError) -> Bool {
        guard let sessionLock else { return true }
        let taken: Bool = try await connection.query(
            "SELECT pg_try_advisory_lock(\(sessionLock.namespace), \(sessionLock.key)) AS taken"
        ).single().decode("taken")
        if taken, let whenTaken = sessionLock.whenTaken {
            try await connection.query(whenTaken)
        }
        if !taken && warn {
            logger.warning("another session still holds this process's liveness lock; trying again at every poll", metadata: [
                "lock.namespace": "\(sessionLock.namespace)", "lock.key": "\(sessionLock.key)",
            ])
        }
        return taken
    }

    /// Listens to every channel on one session, and returns that session's generation: if the
    /// session changed between two `LISTEN`s, all are sent again on the new one.
    private func listen() async throws(PostgresError) -> Int {
        var generation = try await connection.sessionGeneration
        while true {
            for channel in channels {
                // Channel names are identifiers and cannot be parameters; they were validated in init.
                try await connection.query("LISTEN \"\(channel)\"", [])
            }
            let after = try await connection.sessionGeneration
            if after == generation { return after }
            generation = after
        }
    }

    static func isValidChannel(_ channel: String) -> Bool {
        !channel.isEmpty && channel.count <= 63
            && channel.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
