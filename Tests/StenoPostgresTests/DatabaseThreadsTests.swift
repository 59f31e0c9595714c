import Foundation
import StenoTestSupport
import Synchronization
import Testing

@testable import StenoPostgres

@Suite("Database threads")
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
            let started = ContinuousClock.now
            let sleeper = Task { try await client.onDatabaseThreads { try await client.query("SELECT pg_sleep(30)") } }
            try await Task.sleep(for: .milliseconds(300))
            sleeper.cancel()
            let error = await #expect(throws: PostgresError.self) { try await sleeper.value }
            #expect(error?.code == .cancelled)
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try await client.query("SELECT 3 AS n").single().decode("n", as: Int.self) == 3, "the connection is usable after")
            await client.shutdown()
        }
    }

    @Test("while every connection waits for the server, other work on the threads goes on")
    func blockedConnectionsDoNotHoldOthers() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 3)
            // The three sessions are opened first, so that the timing below is the statements'.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { try await client.query("SELECT pg_sleep(0.2)") } }
                try await group.waitForAll()
            }
            let sleepsDone = Counter()
            let (outcome, ran) = try await withThrowingTaskGroup(of: (ok: Bool, span: ClosedRange<Double>?).self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        // The server's clock around each sleep: whether the three ran side by side
                        // is read from when they ran, not from how soon this loaded machine started them.
                        let row = try await client.onDatabaseThreads {
                            try await client.query(
                                "SELECT extract(epoch FROM clock_timestamp())::float8 AS a, pg_sleep(1)::text, extract(epoch FROM clock_timestamp())::float8 AS b"
                            ).single()
                        }
                        let span: ClosedRange<Double> = try row.decode("a")...row.decode("b")
                        sleepsDone.value.add(1, ordering: .relaxed)
                        return (true, span)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(200))
                    return await client.onDatabaseThreads {
                        // Swift work of a fourth task, on the threads, while the three sleep.
                        var sum = 0
                        for value in 0..<1000 { sum &+= value }
                        return (sum > 0 && sleepsDone.value.load(ordering: .relaxed) == 0, nil)
                    }
                }
                var all = true
                var spans: [ClosedRange<Double>] = []
                for try await result in group {
                    all = all && result.ok
                    if let span = result.span { spans.append(span) }
                }
                return (all, spans)
            }
            #expect(outcome, "the fourth task ran before any sleep ended")
            #expect(ran.count == 3)
            // Side by side: a moment when all three slept (one after another, the last would start
            // after the first ended).
            #expect(ran.map(\.lowerBound).max()! < ran.map(\.upperBound).min()!, "the three sleeps ran side by side: \(ran)")
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

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }
}
