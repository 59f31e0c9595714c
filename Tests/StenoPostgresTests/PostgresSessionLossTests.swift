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

    @Test("a session ended inside a transaction fails the transaction's next statement")
    func transactionNotContinuedElsewhere() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let admin = database.client(maxConnections: 1)
            try await client.query("CREATE TABLE kept (n integer)", [])
            let error = await #expect(throws: PostgresError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO kept VALUES (1)", [])
                    let pid: Int32 = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode("pid")
                    try await admin.terminateBackend(pid)
                    try await connection.query("INSERT INTO kept VALUES (2)", [])
                }
            }
            #expect(error?.code == .connectionLost)
            let rows: Int = try await client.query("SELECT count(*)::integer AS n FROM kept").single().decode("n")
            #expect(rows == 0, "neither insert of the lost transaction was committed")
            await client.shutdown()
            await admin.shutdown()
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
