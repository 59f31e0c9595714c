import Foundation
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoTestSupport
import StenoWorker
import Testing

/// An idle worker sends its heartbeat and nothing more, before and after it has done work: the
/// heartbeat says when jobs, expired leases or notices are due. (A stale wake-up once made every
/// wait after the first real one return at once: thousands of transactions a second from one
/// idle worker; and each worker once polled for jobs, notices and expired leases on timers of
/// its own, several times its heartbeat's rate.)
@Suite("Worker idle load", .serialized, .timeLimit(.minutes(5)))
struct WorkerIdleTests {
    /// The statements run in the test database over the worker's next `beats` heartbeats, by
    /// text, from pg_stat_statements (which `scripts/pg-cluster` loads). Unlike
    /// `pg_stat_database`'s transaction counts, these leave out autovacuum's visits and count each
    /// statement the worker sends, by what it is; the test's own reads are left out by name.
    ///
    /// The counts are shared by every test database of the cluster, up to
    /// `pg_stat_statements.max` entries; past it the least-used are evicted, and an evicted
    /// heartbeat entry loses its count (a full worker phase once saw "4 heartbeats over 5
    /// beats"). So a window in which the extension evicted anything is measured again, up to
    /// three times; `scripts/pg-cluster` keeps room for 50,000 entries so that this is rare.
    private func statements(_ db: WorkerTestDatabase, of workerID: String, over beats: Int) async throws -> [String: Int64] {
        try await db.client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        for _ in 1...3 {
            let evictedBefore = try await evictions(db)
            let calls = try await countedWindow(db, of: workerID, over: beats)
            if try await evictions(db) == evictedBefore { return calls }
        }
        throw TestEnvironmentError("pg_stat_statements evicted entries in each of three windows; its counts cannot be trusted")
    }

    private func evictions(_ db: WorkerTestDatabase) async throws -> Int64 {
        try await db.client.query("SELECT dealloc FROM pg_stat_statements_info").single().decode("dealloc")
    }

    private func countedWindow(_ db: WorkerTestDatabase, of workerID: String, over beats: Int) async throws -> [String: Int64] {
        // Counted from a moment when no other session of the database is inside a statement or
        // a transaction, checked in the statement that resets the counts: a transaction of the
        // worker's begun before the reset would show as a lone COMMIT (a CI run saw one).
        try await poll(until: {
            try await !db.client.query(
                """
                SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0) AS reset
                WHERE NOT EXISTS (
                    SELECT 1 FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle')
                """
            ).isEmpty
        }, "a moment with no statement or transaction under way")
        try await db.waitForHeartbeats(beats, of: workerID)
        let rows = try await db.client.query(
            """
            SELECT query, sum(calls)::bigint AS calls FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%steno_test_beat%'
            GROUP BY query
            """)
        var calls: [String: Int64] = [:]
        for row in rows { calls[try row.decode("query")] = try row.decode("calls") }
        return calls
    }

    /// Checks that the worker sent its heartbeat once per beat waited for, and nothing else.
    private func expectOnlyHeartbeats(_ calls: [String: Int64], over beats: Int, when: String) {
        let summary = calls.map { "\($0.value)x \($0.key.prefix(60).replacingOccurrences(of: "\n", with: " "))" }.sorted()
        print("idle worker, \(when): \(summary)")
        let heartbeats = calls.filter { $0.key.contains("UPDATE workers SET status") }.values.reduce(0, +)
        let others = calls.filter { !$0.key.contains("UPDATE workers SET status") }
        // One beat may have been on its way when the counts were reset.
        #expect(heartbeats >= Int64(beats) && heartbeats <= Int64(beats) + 1, "\(when): \(heartbeats) heartbeats over \(beats) beats")
        #expect(others.isEmpty, "\(when): an idle worker sent more than its heartbeat: \(summary)")
    }

    @Test("an idle worker sends only its heartbeat, fresh and after finishing a media")
    func idleWorkerStaysIdle() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningASRBackend.with { asr in
                // Each loop once polled on a timer of its own (claims and notices every second in
                // these tests, rescues every 2 s: 2.9 statements a second, against the heartbeat's
                // 0.4); a stale wake-up once made it thousands.
                // The shortest lease, a beat every 0.5 s: what is counted is statements per
                // beat, whatever the beat's length, and the windows below last 5 beats.
                try await RunningWorker.with(database: database, backendURL: asr.baseURL, configure: { $0.lease = .seconds(2) }) { worker in
                    // Present, then a beat for its first claims and its first look for notices,
                    // which the beat sets.
                    let id = worker.runtime.configuration.workerID
                    try await worker.waitUntilPresent(client)
                    try await db.waitForHeartbeats(1, of: id)
                    // That first look runs after the beat, on its own time: the window starts once
                    // it has (a CI run reset the counts before it, and counted it as idle work).
                    try await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                    try await poll(until: {
                        try await client.query(
                            """
                            SELECT 1 AS seen FROM pg_stat_statements
                            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                              AND query LIKE '%notified_at IS NULL%' AND query NOT LIKE '%pg_stat_statements%' AND calls > 0
                            """
                        ).isEmpty == false
                    }, "the worker's first look for notices")
                    expectOnlyHeartbeats(try await statements(db, of: id, over: 5), over: 5, when: "fresh")

                    let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path)
                    #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                    // A notification that brings no job must not leave the worker spinning either.
                    try await client.query("SELECT pg_notify('steno_jobs', '')")
                    try await db.waitForHeartbeats(1, of: id)
                    expectOnlyHeartbeats(try await statements(db, of: id, over: 5), over: 5, when: "after a media")
                }
            }
        }
    }
}
