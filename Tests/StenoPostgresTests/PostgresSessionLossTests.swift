import Foundation
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// Sessions the server ends between a process's calls: a pooled connection must not hand the
/// loss to the next caller, and a transaction must never carry on in a new session.
@Suite("Lost sessions")
struct PostgresSessionLossTests {
    @Test("an idle session the server ended is replaced before the next call, which succeeds")
    func idleSessionReplaced() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let admin = database.client(maxConnections: 1)
            let before = try await backend(of: client)
            try await admin.terminateBackend(before)
            #expect(try await backend(of: client) != before)
            #expect(try await client.query("SELECT 2 AS two").single().decode("two", as: Int.self) == 2)
            await client.shutdown()
            await admin.shutdown()
        }
    }

    /// The backend sends its FATAL goodbye, leaves `pg_stat_activity`, and only then exits and
    /// closes the socket. A call made in between must see the goodbye; one pass rarely lands in
    /// that window, thirty under load do (CI once failed on it).
    @Test("a session whose server said goodbye is replaced even while its socket is still open")
    func goodbyeBeforeTheSocketCloses() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let admin = database.client(maxConnections: 1)
            for _ in 0..<30 {
                let before = try await backend(of: client)
                try await admin.terminateBackend(before)
                #expect(try await backend(of: client) != before)
            }
            await client.shutdown()
            await admin.shutdown()
        }
    }

    /// A transaction that inserts 1, has its session ended by `end`, then inserts 2: it must fail
    /// with `connectionLost` and leave neither row, however the session ended.
    private func expectLostTransaction(
        _ end: @escaping @Sendable (PostgresConnection, PostgresClient) async throws -> Void
    ) async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let admin = database.client(maxConnections: 1)
            try await client.query("CREATE TABLE kept (n integer)", [])
            let error = await #expect(throws: PostgresError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO kept VALUES (1)", [])
                    try await end(connection, admin)
                    try await connection.query("INSERT INTO kept VALUES (2)", [])
                }
            }
            #expect(error?.code == .connectionLost)
            let rows: Int = try await client.query("SELECT count(*)::integer AS n FROM kept").single().decode("n")
            #expect(rows == 0, "no statement of the lost transaction was committed")
            await client.shutdown()
            await admin.shutdown()
        }
    }

    private static func terminate(_ connection: PostgresConnection, by admin: PostgresClient) async throws {
        let pid: Int32 = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode("pid")
        try await admin.terminateBackend(pid)
    }

    @Test("a session ended inside a transaction fails the transaction's next statement")
    func transactionNotContinuedElsewhere() async throws {
        try await expectLostTransaction { connection, admin in try await Self.terminate(connection, by: admin) }
    }

    /// The server's goodbye can be read between two statements of a transaction (a restart
    /// signals a backend just after it answered): the session is then known to be over before
    /// the next statement is sent. That statement must fail, not run in a new session where it
    /// would commit on its own; the chaos test once left a chunk job `succeeded` with its chunk
    /// still `running` that way, the chunk's own update rolled back with the old session.
    @Test("a goodbye read between two statements of a transaction fails the transaction; nothing of it is committed")
    func goodbyeInsideTransaction() async throws {
        try await expectLostTransaction { connection, admin in
            try await Self.terminate(connection, by: admin)
            // Reads what the server sent, outside any statement: its FATAL goodbye.
            _ = try? await connection.waitForNotifications(timeout: .milliseconds(50))
        }
    }

    @Test("a transaction whose session was closed on the way does not carry on in a new session")
    func closedInsideTransaction() async throws {
        try await expectLostTransaction { connection, _ in await connection.close() }
    }

    /// A task cancelled as its transaction body ends never sends COMMIT: the transaction, and the
    /// row locks it took, must not stay open on the connection the pool hands out next.
    @Test("a transaction whose COMMIT was never sent is rolled back, not left open for the next caller")
    func cancelledBeforeCommit() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            try await client.query("CREATE TABLE kept (n integer)", [])
            let attempt = Task {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO kept VALUES (1)", [])
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            let error = await #expect(throws: PostgresError.self) { try await attempt.value }
            #expect(error?.code == .cancelled)
            // The same (only) connection: inside a transaction left open it would see its own row.
            let rows: Int = try await client.query("SELECT count(*)::integer AS n FROM kept").single().decode("n")
            #expect(rows == 0, "the uncommitted row is gone")
            // A transaction that wrote has a transaction id; a statement of its own has none yet.
            let fresh: Bool = try await client.query(
                "SELECT txid_current_if_assigned() IS NULL AS fresh").single().decode("fresh")
            #expect(fresh, "the next statement runs in a transaction of its own")
            await client.shutdown()
        }
    }

    @Test("sessions keep TCP keepalives of about a minute unless the URL sets its own")
    func keepaliveDefaults() async throws {
        try await TestDatabase.with { database in
            let connection = PostgresConnection(configuration: database.configuration)
            let idle = try await connection.sessionOption("keepalives_idle")
            let count = try await connection.sessionOption("keepalives_count")
            #expect(idle == "30")
            #expect(count == "3")
            await connection.close()

            var configuration = database.configuration
            configuration.connectionString += " keepalives_idle=7"
            let own = PostgresConnection(configuration: configuration)
            let ownIdle = try await own.sessionOption("keepalives_idle")
            let ownInterval = try await own.sessionOption("keepalives_interval")
            #expect(ownIdle == "7", "the connection string's own setting wins")
            #expect(ownInterval == "10")
            await own.close()
        }
    }

    private func backend(of client: PostgresClient) async throws -> Int32 {
        try await client.query("SELECT pg_backend_pid() AS pid").single().decode("pid")
    }
}
