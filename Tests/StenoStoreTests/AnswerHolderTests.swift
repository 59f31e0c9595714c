import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// An answer's mark names the process that holds the answer (migration 0022): the next attempt
/// of the chunk's job waits for a live holder's write, and starts at once when the holder's
/// process died, with the answer in its memory, instead of waiting out the write's window.
@Suite("answer holders")
struct AnswerHolderTests {
    @Test("a dead holder's mark holds nothing: the next attempt starts at once; a live holder's and a reconnecting holder's still hold")
    func deadHolderHoldsNothing() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestData.insertMedia(client)
            let chapter = try await TestData.insertChapter(client, mediaID: media, index: 0)
            let chunk: Int64 = try await client.query(
                "INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, state) VALUES (\(media), \(chapter), 0, 0, 30, 'running') RETURNING id"
            ).single().decode("id")
            let store = WorkStore(client: client)
            let policy = WorkerLivenessRescueTests.atOnce
            let window = Duration.seconds(600)

            // A live holder: the next attempt waits for its write.
            var (key, session) = try await WorkerLivenessRescueTests.liveWorker("holder", database)
            try await store.holdAnswer(chunkID: chunk, for: window, by: JobLease(jobID: 1, owner: "holder", attempt: 1))
            #expect(try await store.markRunning(chunkID: chunk, policy: policy) == .answerHeldElsewhere)
            // Its process dies, ten minutes before its mark would run out: nothing is held.
            try await WorkerLivenessRescueTests.die(session, key: key, client)
            #expect(try await store.markRunning(chunkID: chunk, policy: policy) == .started)
            let cleared: Bool = try await client.query(
                "SELECT answer_held_until IS NULL AND answer_held_key IS NULL AS cleared FROM chunks WHERE id = \(chunk)").single().decode("cleared")
            #expect(cleared, "the attempt that started cleared the dead holder's mark")

            // A supervisor's new child registers under the same worker id with a new key: the
            // answer died with the old process, whose mark holds nothing though the id lives.
            (key, session) = try await WorkerLivenessRescueTests.liveWorker("restarted", database)
            try await store.holdAnswer(chunkID: chunk, for: window, by: JobLease(jobID: 1, owner: "restarted", attempt: 2))
            try await WorkerLivenessRescueTests.die(session, key: key, client)
            let (_, child) = try await WorkerLivenessRescueTests.liveWorker("restarted", database)
            #expect(try await store.markRunning(chunkID: chunk, policy: policy) == .started)
            await child.close()

            // Just after a database restart a live holder may not have its lock again: its
            // missing lock proves nothing within the start grace, and its mark still holds.
            (key, session) = try await WorkerLivenessRescueTests.liveWorker("reconnecting", database)
            try await store.holdAnswer(chunkID: chunk, for: window, by: JobLease(jobID: 1, owner: "reconnecting", attempt: 3))
            try await WorkerLivenessRescueTests.die(session, key: key, client)
            try await client.query(
                "UPDATE workers SET liveness_locked_at = pg_postmaster_start_time() - interval '1 minute' WHERE id = 'reconnecting'")
            let young = RescuePolicy(startGrace: .seconds(100 * 365 * 86_400), hangLimit: .seconds(300), crashBudget: 4)
            #expect(try await store.markRunning(chunkID: chunk, policy: young) == .answerHeldElsewhere)
            #expect(try await store.markRunning(chunkID: chunk, policy: policy) == .started)
            await client.shutdown()
        }
    }
}
