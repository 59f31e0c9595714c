import Logging
import Synchronization

/// A pool of connections shared by the tasks of one process.
///
/// Each call leases a connection for its whole duration, so a transaction's statements never
/// interleave with another task's. Connections open lazily, up to `maxConnections`; callers beyond
/// that wait in order.
public final class PostgresClient: Sendable {
    public let configuration: PostgresConfiguration
    public let maxConnections: Int
    let logger: Logger

    private struct State: ~Copyable {
        var idle: [PostgresConnection] = []
        var open = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<PostgresConnection, any Error>)] = []
        var nextWaiterID = 0
        var closed = false
    }

    private enum Lease {
        case reuse(PostgresConnection)
        case open
        case wait
        case closed
    }

    private let state = Mutex(State())

    public init(configuration: PostgresConfiguration, maxConnections: Int = 4, logger: Logger = Logger(label: "steno.postgres")) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.configuration = configuration
        self.maxConnections = maxConnections
        self.logger = logger
    }

    /// Leases a connection for the duration of `body`.
    public func withConnection<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let connection = try await lease()
        defer { release(connection) }
        return try await body(connection)
    }

    /// Runs one statement on any connection.
    @discardableResult
    public func query(_ statement: String, _ parameters: [any PostgresEncodable] = []) async throws -> PostgresRows {
        try await withConnection { try await $0.query(statement, parameters) }
    }

    /// Runs `body` in one transaction on one connection.
    public func withTransaction<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withConnection { try await $0.withTransaction(body) }
    }

    /// Sends a notification on `channel`.
    public func notify(channel: String, payload: String = "") async throws {
        try await query("SELECT pg_notify($1, $2)", [channel, payload])
    }

    /// Closes idle connections and fails every later call and waiter.
    public func shutdown() async {
        let (idle, waiters) = state.withLock { state in
            state.closed = true
            let idle = state.idle
            state.idle = []
            let waiters = state.waiters
            state.waiters = []
            return (idle, waiters)
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: PostgresError(.clientClosed, "the database client was shut down"))
        }
        for connection in idle {
            await connection.close()
        }
    }

    private func lease() async throws -> PostgresConnection {
        let decision: Lease = state.withLock { state in
            if state.closed { return .closed }
            if let connection = state.idle.popLast() { return .reuse(connection) }
            if state.open < maxConnections {
                state.open += 1
                return .open
            }
            return .wait
        }
        switch decision {
        case .reuse(let connection):
            return connection
        case .open:
            return PostgresConnection(configuration: configuration, logger: logger)
        case .closed:
            throw PostgresError(.clientClosed, "the database client was shut down")
        case .wait:
            return try await waitForConnection()
        }
    }

    private func waitForConnection() async throws -> PostgresConnection {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Lease = state.withLock { state in
                    if state.closed { return .closed }
                    if let connection = state.idle.popLast() { return .reuse(connection) }
                    if Task.isCancelled { return .closed }
                    state.waiters.append((id, continuation))
                    return .wait
                }
                switch immediate {
                case .reuse(let connection): continuation.resume(returning: connection)
                case .closed: continuation.resume(throwing: Task.isCancelled ? CancellationError() : PostgresError(.clientClosed, "the database client was shut down"))
                case .wait, .open: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<PostgresConnection, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func release(_ connection: PostgresConnection) {
        let waiter = state.withLock { state -> CheckedContinuation<PostgresConnection, any Error>? in
            if !state.waiters.isEmpty {
                return state.waiters.removeFirst().continuation
            }
            if state.closed {
                state.open -= 1
            } else {
                state.idle.append(connection)
            }
            return nil
        }
        waiter?.resume(returning: connection)
    }
}
