import Foundation
import StenoTestSupport
import Testing

@testable import StenoPostgres

@Suite("Database restart", .timeLimit(.minutes(3)))
struct PostgresRestartTests {
    @Test("a query while the server restarts returns an error, and the next one succeeds")
    func queryDuringRestart() async throws {
        try await TestCluster.with { cluster in
            let connection = try await PostgresConnection.connect(configuration: cluster.configuration)
            let before = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode(
                "pid", as: Int32.self)

            // A statement that would outlast the suite's time limit: the call returns only
            // because the restart ended it.
            let sleeper = Task { try await connection.query("SELECT pg_sleep(3600)") }
            try await cluster.configuration.waitUntilRunning("SELECT pg_sleep")
            try await cluster.restart()
            let outcome = await sleeper.result

            let error = #expect(throws: PostgresError.self) { try outcome.get() }
            #expect(error?.code == .connectionLost)
            #expect(error?.isTransient == true)

            let after = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode(
                "pid", as: Int32.self)
            #expect(after != before, "a new server session was opened")
            await connection.close()
        }
    }

    @Test("the first call after the server restarted between calls succeeds on a new session")
    func poolAfterRestart() async throws {
        try await TestCluster.with { cluster in
            let client = PostgresClient(configuration: cluster.configuration, maxConnections: 2)
            try await client.query("SELECT 1")
            try await cluster.restart()
            // The pooled session was closed by the restart while idle: it is replaced, not reported.
            let value = try await client.query("SELECT 2 AS two").single().decode("two", as: Int.self)
            #expect(value == 2)
            await client.shutdown()
        }
    }

    @Test("a stopped server gives a clear connection error within the reconnect window")
    func serverDown() async throws {
        let cluster = try await TestCluster.start()
        var configuration = cluster.configuration
        configuration.reconnectWindow = .seconds(1)
        await cluster.stop()
        let error = await #expect(throws: PostgresError.self) {
            _ = try await PostgresConnection.connect(configuration: configuration)
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.hint?.contains("STENO_DATABASE_URL") == true)
    }
}
