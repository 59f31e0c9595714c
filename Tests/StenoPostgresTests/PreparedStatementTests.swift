import Foundation
import StenoTestSupport
import Testing

@testable import StenoPostgres

@Suite("Prepared statements")
struct PreparedStatementTests {
    @Test("a query is prepared once per session and reused; ad-hoc SQL is not prepared")
    func preparedOncePerSession() async throws {
        try await TestDatabase.with { database in
            let connection = PostgresConnection(configuration: database.configuration)
            for value in 1...5 {
                let row = try await connection.query("SELECT \(value)::integer + 1 AS next").single()
                #expect(try row.decode("next", as: Int.self) == value + 1)
            }
            try await connection.query("SELECT $1::integer AS adhoc", [1])
            let prepared = try await connection.query(
                "SELECT statement FROM pg_prepared_statements WHERE NOT from_sql ORDER BY statement", [])
            #expect(try prepared.map { try $0.decode("statement", as: String.self) } == ["SELECT $1::integer + 1 AS next"])
            await connection.close()
        }
    }

    @Test("a statement prepared before a table changed shape runs again with the new columns")
    func preparedAcrossAMigration() async throws {
        try await TestDatabase.with { database in
            let connection = PostgresConnection(configuration: database.configuration)
            try await connection.query("CREATE TABLE shape (a integer)", [])
            try await connection.query("INSERT INTO shape VALUES (1)", [])
            let before = try await connection.query("SELECT * FROM shape")
            #expect(before.columns.names == ["a"])
            try await connection.query("ALTER TABLE shape ADD COLUMN b text DEFAULT 'x'", [])
            let after = try await connection.query("SELECT * FROM shape").single()
            #expect(after.columns.names == ["a", "b"])
            #expect(try after.decode("b", as: String.self) == "x")
            await connection.close()
        }
    }

    @Test("a new session prepares again after the old one was lost")
    func preparedAgainAfterReconnect() async throws {
        try await TestDatabase.with { database in
            let connection = PostgresConnection(configuration: database.configuration)
            let pid: Int32 = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode("pid")
            let admin = database.client()
            // The idle session was ended: the next call opens a new one, which has prepared nothing.
            try await admin.terminateBackend(pid)
            let again: Int32 = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode("pid")
            #expect(again != pid)
            await connection.close()
            await admin.shutdown()
        }
    }
}
