import Logging
import StenoCore

/// A pool of connections shared by the tasks of one process.
///
/// Each call leases a connection for its whole duration, so a transaction's statements never
/// interleave with another task's. Connections open lazily, up to `maxConnections`; callers beyond
/// that wait in order.
public final class PostgresClient: Sendable {
    public let configuration: PostgresConfiguration
    public let maxConnections: Int
    let logger: Logger
    private let pool: ResourcePool<PostgresConnection>

    public init(configuration: PostgresConfiguration, maxConnections: Int = 4, logger: Logger = Logger(label: "steno.postgres")) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.configuration = configuration
        self.maxConnections = maxConnections
        self.logger = logger
        // A connection opens on its first call, which reconnects with backoff: making it cannot fail.
        self.pool = ResourcePool(capacity: maxConnections) {
            PostgresConnection(configuration: configuration, logger: logger)
        }
    }

    /// Leases a connection for the duration of `body`.
    public func withConnection<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await pool.withResource(body)
        } catch is ResourcePool<PostgresConnection>.Closed {
            throw PostgresError(.clientClosed, "the database client was shut down")
        }
    }

    /// Runs one statement on any connection.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { try await $0.query(query) }
    }

    /// Runs one statement written with positional placeholders, unprepared (ad-hoc SQL; see
    /// `PostgresConnection.query(_:_:)`).
    @discardableResult
    public func query(_ statement: String, _ parameters: [any PostgresEncodable]) async throws -> PostgresRows {
        try await withConnection { try await $0.query(statement, parameters) }
    }

    /// Runs `body` in one transaction on one connection.
    public func withTransaction<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withConnection { try await $0.withTransaction(body) }
    }

    /// Sends a notification on `channel`.
    public func notify(channel: String, payload: String = "") async throws {
        try await query("SELECT pg_notify(\(channel), \(payload))")
    }

    /// Closes idle connections and fails every later call and waiter.
    public func shutdown() async {
        for connection in pool.close() {
            await connection.close()
        }
    }
}
