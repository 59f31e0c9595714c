import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoWorker

/// A job quarantined to run alone, on a worker whose slots are refilled as each job ends.
@Suite("A job that runs alone gets its turn on a loaded worker", .serialized, .timeLimit(.minutes(5)))
struct AloneUnderLoadTests {
    @Test("with a backlog of chunk jobs, a job due to run alone runs before the backlog has drained")
    func aloneJobRunsBeforeTheBacklogDrains() async throws {
        // Each answer takes a second: two slots work through the backlog for about a minute.
        let backend = try FaultServer(replies: [], then: .json(200, #"{"text":"Paid for once."}"#, delay: .seconds(1)))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: {
                $0.planner.targetDuration = MediaTime(seconds: 3)
                $0.concurrency = 2
                // A heartbeat every 2.5 s; long enough that a loaded machine loses no lease.
                $0.lease = .seconds(10)
                $0.speakerDetection = false
                $0.coverage = nil
            }) { _ in
                var media: [Int64] = []
                for _ in 0..<6 { media.append(try await db.enqueue(FixtureBook.file("book.m4b").path)) }
                let queued = try await polled {
                    let count = try await db.count("SELECT count(*) FROM jobs WHERE kind = 'chunk' AND state = 'queued' AND NOT runs_alone AND $1 = $1", 0)
                    return count >= 30 ? count : nil
                }
                try #require(queued != nil, "the backlog of chunk jobs never built up")
                // Quarantined a while ago, as after a crash beside it: due to run alone.
                let alone: Int64 = try await client.query(
                    """
                    UPDATE jobs SET runs_alone = true, run_at = now() - interval '30 seconds'
                    WHERE id = (SELECT id FROM jobs WHERE kind = 'chunk' AND state = 'queued' ORDER BY id DESC LIMIT 1)
                    RETURNING id
                    """
                ).single().decode("id")
                let finished = try await polled(within: .seconds(120)) {
                    try await client.query("SELECT state FROM jobs WHERE id = \(alone)").single().decode("state", as: String.self) == "succeeded" ? true : nil
                }
                #expect(finished == true, "the job that runs alone never ran")
                for id in media { _ = try await db.waitForMedia(id, in: ["succeeded", "failed", "cancelled"], timeout: .seconds(180)) }
                // Counted once every media is done: right after the job ends the worker may not
                // have claimed its next jobs yet (a run of 2026-11-29 counted 0 there with the
                // backlog still queued), nor have ended an attempt that overlapped.
                //
                // Chunk jobs of the backlog started after its first attempt had: the backlog had
                // not drained when it ran (a job that runs alone only when its worker empties by
                // itself runs last).
                let startedAfter = try await db.count(
                    """
                    SELECT count(*) FROM jobs WHERE kind = 'chunk' AND id <> $1
                      AND started_at > (SELECT min(started_at) FROM job_attempts WHERE job_id = $1)
                    """, alone)
                #expect(startedAfter > 0, "the job ran alone only once every other chunk job had been taken")
                // And it ran alone: no other job of the worker overlapped its attempt.
                let beside = try await db.count(
                    """
                    SELECT count(*) FROM job_attempts a, job_attempts mine
                    WHERE mine.job_id = $1 AND a.job_id <> $1
                      AND a.started_at < mine.finished_at AND a.finished_at > mine.started_at
                    """, alone)
                #expect(beside == 0, "\(beside) attempts ran beside the job that must run alone")
            }
        }
    }
}
