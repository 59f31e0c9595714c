import Foundation
import StenoCore
import StenoPostgres
import StenoTestSupport
import Testing

/// An idle worker sends its heartbeat and nothing more, before and after it has done work: the
/// heartbeat says when jobs, expired leases or notices are due. (A stale wake-up once made every
/// wait after the first real one return at once: thousands of transactions a second from one
/// idle worker; and each worker once polled for jobs, notices and expired leases on timers of
/// its own, several times its heartbeat's rate.)
@Suite("Worker idle load", .serialized, .timeLimit(.minutes(3)))
struct WorkerIdleTests {
    /// Committed transactions in the test database per second over `window`. PostgreSQL flushes
    /// a backend's counts to the shared view at most every second while busy and within 10 s when
    /// idle, so the window is long and the bound generous; a busy loop is orders of magnitude above it.
    private func transactionsPerSecond(_ client: PostgresClient, over window: Duration) async throws -> Double {
        let query = "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()"
        let before: Int64 = try await client.query(query).single().decode("n")
        try await Task.sleep(for: window)
        let after: Int64 = try await client.query(query).single().decode("n")
        return Double(after - before) / window.seconds
    }

    @Test("an idle worker's database load stays at its heartbeat rate, fresh and after finishing a media")
    func idleWorkerStaysIdle() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningASRBackend.with { asr in
                // The heartbeat, every lease/4 = 2.5 s, is 0.4 a second; this test's own two reads add
                // about 0.1. Polls on timers of their own (claims, notices, rescues) ran 2.9 a second
                // at the settings these tests used; a busy loop ran 2,000+.
                try await RunningWorker.with(database: database, backendURL: asr.baseURL) { _ in
                    try await Task.sleep(for: .seconds(2))
                    let fresh = try await transactionsPerSecond(client, over: .seconds(12))
                    print("idle worker, fresh: \(String(format: "%.1f", fresh)) transactions/s")
                    #expect(fresh < 1, "a fresh idle worker ran \(fresh) transactions a second")

                    let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path)
                    #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                    // A notification that brings no job must not leave the worker spinning either.
                    try await client.query("SELECT pg_notify('steno_jobs', '')")
                    try await Task.sleep(for: .seconds(2))
                    let after = try await transactionsPerSecond(client, over: .seconds(12))
                    print("idle worker, after a media: \(String(format: "%.1f", after)) transactions/s")
                    #expect(after < 1, "an idle worker ran \(after) transactions a second after finishing a media")
                }
            }
        }
    }
}
