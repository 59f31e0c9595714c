import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import StenoWorker
import Testing

/// A job that the rescue takes back for good (out of attempts through lease expiries) must not
/// leave its chunk `running` and its chapter and media `transcribing` for ever.
@Suite("Rescue: what rescued jobs leave behind")
struct RescueCascadeTests {
    private func chunkJob(_ client: PostgresClient, maxAttempts: Int) async throws -> (media: Int64, chapter: Int64, chunk: Int64, job: Int64) {
        let media = try await TestData.insertMedia(client)
        let chapter = try await TestData.insertChapter(client, mediaID: media, index: 0)
        try await client.query("UPDATE media SET state = 'transcribing' WHERE id = \(media)")
        try await client.query("UPDATE chapters SET state = 'transcribing' WHERE id = \(chapter)")
        let chunk: Int64 = try await client.query(
            "INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds) VALUES (\(media), \(chapter), 0, 0, 30) RETURNING id"
        ).single().decode("id")
        let job = try await JobStore(client: client).enqueue(
            NewJob(kind: .chunk, maxAttempts: maxAttempts, mediaID: media, chapterID: chapter, chunkID: chunk))
        return (media, chapter, chunk, job)
    }

    /// Claims the job as `worker` with a lease of 50 ms and lets that lease run out on `clock`.
    private func claimAndLetTheLeaseExpire(_ client: PostgresClient, worker: String, clock: ManualClock) async throws {
        _ = try await JobStore(client: client, time: .given(by: clock)).claim(limit: 1, worker: worker, lease: .milliseconds(50))
        clock.advance(by: .milliseconds(100))
    }

    private func state(_ client: PostgresClient, _ table: String, _ id: Int64) async throws -> (String, String?, String?) {
        let row = try await client.query("SELECT state, error_class, error_message FROM \(table) WHERE id = $1", [id]).single()
        return (try row.decode("state"), try row.decode("error_class"), try row.decode("error_message"))
    }

    @Test("out of attempts by lease expiry: chunk, chapter and media fail with a reason, and retry resumes them")
    func outOfAttemptsFailsTheMedia() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let rows = try await chunkJob(client, maxAttempts: 2)
            let clock = ManualClock(date: Date())
            let jobs = JobStore(client: client, time: .given(by: clock))
            let store = WorkStore(client: client, time: .given(by: clock))
            for crash in 1...2 {
                let claimed = try await jobs.claim(limit: 1, worker: "crashed-\(crash)", lease: .milliseconds(50))
                #expect(claimed.map(\.id) == [rows.job])
                try await client.query("UPDATE chunks SET state = 'running' WHERE id = \(rows.chunk)")
                clock.advance(by: .milliseconds(100))
                let rescued = try await store.rescueExpired()
                #expect(rescued.map(\.state) == [crash == 1 ? .queued : .failed])
                if crash == 1 {
                    #expect(try await state(client, "chunks", rows.chunk).0 == "queued")
                    #expect(try await state(client, "media", rows.media).0 == "transcribing")
                }
            }
            let chunk = try await state(client, "chunks", rows.chunk)
            let chapter = try await state(client, "chapters", rows.chapter)
            let media = try await state(client, "media", rows.media)
            #expect(chunk.0 == "failed")
            #expect(chapter.0 == "failed")
            #expect(media.0 == "failed")
            #expect(media.1 == FailureClass.lostLease.rawValue)
            #expect(media.2?.contains("stopped renewing its lease 2 times") == true, "\(media.2 ?? "")")
            #expect(media.2?.contains("steno retry") == true)

            let outcome = try await AdminStore(client: client).retry(mediaID: rows.media)
            #expect(outcome.requeuedJobs == 1)
            #expect(outcome.requeuedChunks == 1)
            #expect(try await state(client, "media", rows.media).0 == "transcribing")
            #expect(try await state(client, "chunks", rows.chunk).0 == "queued")
            // The retry queued it on the database's clock: claimed on that clock too.
            #expect(try await JobStore(client: client).claim(limit: 1, worker: "alive", lease: .seconds(60)).map(\.id) == [rows.job])
            await client.shutdown()
        }
    }

    @Test("a rescued job whose cancel was requested cancels its chunk")
    func cancelledJobCancelsChunk() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let rows = try await chunkJob(client, maxAttempts: 5)
            let clock = ManualClock(date: Date())
            let jobs = JobStore(client: client, time: .given(by: clock))
            _ = try await jobs.claim(limit: 1, worker: "crashed", lease: .milliseconds(50))
            try await client.query("UPDATE chunks SET state = 'running' WHERE id = \(rows.chunk)")
            try await client.query("UPDATE jobs SET cancel_requested = true WHERE id = \(rows.job)")
            clock.advance(by: .milliseconds(100))
            #expect(try await WorkStore(client: client, time: .given(by: clock)).rescueExpired().map(\.state) == [.cancelled])
            #expect(try await state(client, "chunks", rows.chunk).0 == "cancelled")
            await client.shutdown()
        }
    }

    @Test("a worker's own rescue spares the late jobs it still runs; another worker's rescue takes them")
    func ownJobsAreSpared() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let rows = try await chunkJob(client, maxAttempts: 5)
            let clock = ManualClock(date: Date())
            try await claimAndLetTheLeaseExpire(client, worker: "slow-but-alive", clock: clock)
            let store = WorkStore(client: client, time: .given(by: clock))
            #expect(try await store.rescueExpired(sparing: "slow-but-alive", running: [rows.job]).isEmpty)
            #expect(try await store.rescueExpired(sparing: "another-worker", running: [rows.job]).map(\.id) == [rows.job])
            await client.shutdown()
        }
    }

    @Test("a worker's own rescue takes back its job that it no longer runs (it could not record how the job ended)")
    func ownAbandonedJobIsTakenBack() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let rows = try await chunkJob(client, maxAttempts: 5)
            let clock = ManualClock(date: Date())
            try await claimAndLetTheLeaseExpire(client, worker: "only-worker", clock: clock)
            let rescued = try await WorkStore(client: client, time: .given(by: clock)).rescueExpired(sparing: "only-worker", running: [])
            #expect(rescued.map(\.id) == [rows.job])
            #expect(rescued.map(\.state) == [.queued])
            await client.shutdown()
        }
    }
}
