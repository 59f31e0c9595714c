public import Logging
import StenoInfrastructure

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
    /// One more than the connections, so that Swift code of the tasks on them runs while every
    /// connection waits for the server.
    private let databaseThreads: DatabaseThreads

    public init(configuration: PostgresConfiguration, maxConnections: Int = 4, logger: Logger = Logger(label: "steno.postgres")) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.configuration = configuration
        self.maxConnections = maxConnections
        self.logger = logger
        let databaseThreads = DatabaseThreads(count: maxConnections + 1)
        self.databaseThreads = databaseThreads
        // A connection opens on its first call, which reconnects with backoff: making it cannot fail.
        self.pool = ResourcePool(capacity: maxConnections) {
            PostgresConnection(configuration: configuration, logger: logger, databaseThreads: databaseThreads)
        }
    }

    /// Runs `body` on the client's own threads, where its statements wait for the server in
    /// place instead of hopping off Swift's cooperative pool and back (see `DatabaseThreads`).
    /// For loops that mostly talk to the database; `body`'s other work runs there too, so it
    /// must not block on anything but this client.
    @discardableResult
    public func onDatabaseThreads<Result, Failure: Error>(_ body: () async throws(Failure) -> Result) async throws(Failure) -> Result {
        try await withTaskExecutorPreference(databaseThreads, operation: body)
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

    /// Runs `body` in one transaction on one connection, on the client's own threads: its
    /// statements then cost no hop each (see `onDatabaseThreads`).
    @discardableResult
    public func withTransaction<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await onDatabaseThreads { try await withConnection { try await $0.withTransaction(body) } }
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
        databaseThreads.shutdown()
    }
}
