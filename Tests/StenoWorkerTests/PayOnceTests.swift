import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import StenoWorker
import Testing

/// An answer the backend returned is paid for: it is stored even when the database connection
/// breaks as it is written, and the audio is never uploaded again for a database blip.
@Suite("an answer is paid for once", .serialized, .timeLimit(.minutes(5)))
struct PayOnceTests {
    // The answer comes 3 s after the upload, so that the test holds the chapter's lock before it
    // arrives, even on a loaded machine.
    static let answer = #"{"text":"Paid for once.","segments":[{"id":0,"start":0.0,"end":1.5,"text":"Paid for once."}]}"#

    @Test("the connection storing an answer is terminated mid-transaction (as by a restart): the answer is stored on a retry, and the chunk is uploaded once")
    func connectionTerminatedWhileTheAnswerIsWritten() async throws {
        try await TestDatabase.with { database in
            let backend = try FaultServer(replies: [], then: .json(200, Self.answer, delay: .seconds(3)))
            defer { backend.stop() }
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL) { _ in
                let id = try await db.enqueue(FixtureBook.file("clip-2s.flac").path)
                try await Self.waitFor("the chunk's upload") { backend.requestCount == 1 }
                // Hold the chapter's row, so the worker's write of the answer waits on it inside
                // its transaction; then terminate that session, as a restart or a failover does.
                let holder = try await PostgresConnection.connect(configuration: database.configuration)
                try await holder.query("BEGIN")
                try await holder.query("SELECT id FROM chapters WHERE media_id = \(id) FOR UPDATE")
                // Found and terminated in one statement, so that nothing can change in between.
                try await Self.waitFor("the worker's write to wait on the chapter's lock, to terminate it") {
                    try await !client.query(
                        """
                        SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
                        WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT id FROM chapters WHERE id = %'
                        """
                    ).isEmpty
                }
                try await holder.query("ROLLBACK")
                await holder.close()

                let state = try await db.waitForMedia(id, in: ["succeeded", "failed", "cancelled"], timeout: .seconds(120))
                let ended = try await db.mediaState(id)
                #expect(state == "succeeded", "\(ended)")
                #expect(backend.requestCount == 1, "the audio was uploaded \(backend.requestCount) times for one chunk")
                let discarded = try await db.count(
                    "SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE j.media_id = $1 AND a.answer_discarded IS NOT NULL", id)
                #expect(discarded == 0)
                let text = try await client.query("SELECT text FROM chunks WHERE media_id = \(id)").first?.decode("text", as: String.self)
                #expect(text == "Paid for once.")
            }
        }
    }

    @Test("the job is rescued while its answer is being written: the answer is kept, the job's next run finds the chunk done, one upload")
    func leaseLostWhileTheAnswerIsWritten() async throws {
        try await TestDatabase.with { database in
            let backend = try FaultServer(replies: [], then: .json(200, Self.answer, delay: .seconds(3)))
            defer { backend.stop() }
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL) { worker in
                let id = try await db.enqueue(FixtureBook.file("clip-2s.flac").path)
                try await Self.waitFor("the chunk's upload") { backend.requestCount == 1 }
                let holder = try await PostgresConnection.connect(configuration: database.configuration)
                try await holder.query("BEGIN")
                try await holder.query("SELECT id FROM chapters WHERE media_id = \(id) FOR UPDATE")
                try await Self.waitFor("the worker's write to wait on the chapter's lock") {
                    try await client.query(
                        "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT id FROM chapters WHERE id = %'"
                    ).first?.decode("n", as: Int64.self) == 1
                }
                // What a rescue does to a job whose lease expired: back to the queue, no owner;
                // committed while the write still waits, and held past two heartbeats (the first
                // may have begun before it), so that the worker sees its lease lost mid-write.
                try await client.query(
                    "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, run_at = now() WHERE media_id = \(id) AND kind = 'chunk'")
                try await db.waitForHeartbeats(2, of: worker.runtime.configuration.workerID)
                try await holder.query("COMMIT")
                await holder.close()

                let state = try await db.waitForMedia(id, in: ["succeeded", "failed", "cancelled"], timeout: .seconds(120))
                let ended = try await db.mediaState(id)
                #expect(state == "succeeded", "\(ended)")
                #expect(backend.requestCount == 1, "the audio was uploaded \(backend.requestCount) times for one chunk")
                let runs = try await db.count("SELECT max(attempt) AS count FROM jobs WHERE media_id = $1 AND kind = 'chunk'", id)
                #expect(runs == 2, "the rescued job should have run again and found its chunk done")
            }
        }
    }

    @Test("an attempt that holds the chunk's answer keeps any other attempt from starting until the answer is stored or the hold runs out")
    func answerHoldKeepsOtherAttemptsWaiting() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let media = try await TestData.insertMedia(client)
            let chapter = try await TestData.insertChapter(client, mediaID: media, index: 0)
            let chunk: Int64 = try await client.query(
                "INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, state) VALUES (\(media), \(chapter), 0, 0, 30, 'running') RETURNING id"
            ).single().decode("id")
            let clock = ManualClock(date: Date())
            let store = WorkStore(client: client, time: .given(by: clock))
            // A worker with no row, as before migration 0022: its mark names no process, and
            // only its window ends it (WorkerLivenessRescueTests: a holder's death ends it).
            let holder = JobLease(jobID: 1, owner: "unregistered-holder", attempt: 1)
            #expect(try await store.markRunning(chunkID: chunk) == .started)
            try await store.holdAnswer(chunkID: chunk, for: .seconds(60), by: holder)
            #expect(try await store.markRunning(chunkID: chunk) == .answerHeldElsewhere)
            // The holder stores its answer: the chunk is done, the mark gone.
            try await client.query(
                "UPDATE chunks SET state = 'succeeded', answer_held_until = NULL WHERE id = \(chunk)")
            #expect(try await store.markRunning(chunkID: chunk) == .notRunnable)
            // A holder that died: its mark runs out and the next attempt starts.
            try await client.query("UPDATE chunks SET state = 'running' WHERE id = \(chunk)")
            try await store.holdAnswer(chunkID: chunk, for: .milliseconds(200), by: holder)
            #expect(try await store.markRunning(chunkID: chunk) == .answerHeldElsewhere)
            clock.advance(by: .milliseconds(199))
            #expect(try await store.markRunning(chunkID: chunk) == .answerHeldElsewhere)
            clock.advance(by: .milliseconds(2))
            #expect(try await store.markRunning(chunkID: chunk) == .started)
        }
    }

    static func waitFor(_ what: String, timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
        guard try await polled(within: timeout, { try await condition() ? true : nil }) == true else {
            throw TestEnvironmentError("timed out waiting for \(what)")
        }
    }
}
