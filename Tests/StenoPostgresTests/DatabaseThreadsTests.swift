import Foundation
import StenoTestSupport
import Synchronization
import Testing

@testable import StenoPostgres

@Suite("Database threads", .timeLimit(.minutes(2)))
struct DatabaseThreadsTests {
    @Test("statements of a task on the client's threads run in place; elsewhere they hop to the connection's queue")
    func statementsRunInPlace() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let connection = try await client.withConnection { $0 }
            for _ in 0..<5 { try await client.query("SELECT 1") }
            #expect(connection.callsInPlace.load(ordering: .relaxed) == 0)
            try await client.onDatabaseThreads {
                for value in 0..<10 {
                    let read: Int = try await client.query("SELECT \(value)::integer AS n").single().decode("n")
                    #expect(read == value)
                }
            }
            #expect(connection.callsInPlace.load(ordering: .relaxed) == 10)
            // A transaction moves there by itself: BEGIN, two statements, COMMIT.
            try await client.withTransaction { connection in
                try await connection.query("SELECT 1", [])
                try await connection.query("SELECT 2", [])
            }
            #expect(connection.callsInPlace.load(ordering: .relaxed) == 14)
            await client.shutdown()
        }
    }

    @Test("a statement running in place is cancelled with its task")
    func cancelInPlace() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            // Longer than the suite's time limit: only the cancel can end it.
            let sleeper = Task { try await client.onDatabaseThreads { try await client.query("SELECT pg_sleep(3600)") } }
            try await database.configuration.waitUntilRunning("SELECT pg_sleep")
            sleeper.cancel()
            let error = await #expect(throws: PostgresError.self) { try await sleeper.value }
            #expect(error?.code == .cancelled)
            #expect(try await client.query("SELECT 3 AS n").single().decode("n", as: Int.self) == 3, "the connection is usable after")
            await client.shutdown()
        }
    }

    @Test("while every connection waits for the server, other work on the threads goes on")
    func blockedConnectionsDoNotHoldOthers() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 3)
            let holder = try await PostgresConnection.connect(configuration: database.configuration)
            // The three statements wait on a lock the test holds, for as long as it holds it: no
            // race with a sleep on the server.
            try await holder.query("SELECT pg_advisory_lock(9)")
            let waiting = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<3 {
                        group.addTask {
                            _ = try await client.onDatabaseThreads { () async throws -> PostgresRows in try await client.query("SELECT pg_advisory_lock_shared(9)") }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await poll(until: {
                try await holder.query(
                    """
                    SELECT count(*)::integer AS n FROM pg_locks
                    WHERE locktype = 'advisory' AND objid = 9 AND NOT granted
                      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """
                ).single().decode("n", as: Int.self) == 3
            }, "all three connections waiting on the server")
            // Swift work of a fourth task, on the threads, while all three wait: were the threads
            // held by the waits, it would never run, and the suite's time limit would end the test.
            let sum = await client.onDatabaseThreads { (0..<1000).reduce(0, &+) }
            #expect(sum == 499_500)
            try await holder.query("SELECT pg_advisory_unlock(9)")
            try await waiting.value
            await holder.close()
            await client.shutdown()
        }
    }

    @Test("after shutdown, work on the client's threads fails cleanly instead of hanging")
    func afterShutdown() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            try await client.onDatabaseThreads { try await client.query("SELECT 1") }
            await client.shutdown()
            do {
                try await client.onDatabaseThreads { try await client.query("SELECT 1") }
                Issue.record("a statement ran after shutdown")
            } catch let error as PostgresError {
                #expect(error.code == .clientClosed)
            }
        }
    }
}
