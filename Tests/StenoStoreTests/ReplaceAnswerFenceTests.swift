import Foundation
import StenoCore
import StenoInfrastructure
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// The merge's second ask of a chunk in the media's language writes through the lease fence,
/// as every other write of a job does.
@Suite("WorkStore.replaceAnswer: fenced by the merge's lease")
struct ReplaceAnswerFenceTests {
    @Test("a merge that lost its lease does not overwrite the chunk's answer; what it paid is still counted; the holder's write lands")
    func lostLeaseWritesNoAnswer() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let clock = ManualClock(date: Date())
            let jobs = JobStore(client: client, time: .given(by: clock))
            let store = WorkStore(client: client, time: .given(by: clock))
            let media = try await TestData.insertMedia(client)
            let chapter = try await TestData.insertChapter(client, mediaID: media, index: 0)
            let chunk: Int64 = try await client.query(
                """
                INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, state, text, language)
                VALUES (\(media), \(chapter), 0, 0, 30, 'succeeded', 'Bonjour.', 'fr') RETURNING id
                """
            ).single().decode("id")
            _ = try await jobs.enqueue(NewJob(kind: .merge))
            let stale = try #require(try await jobs.claim(limit: 1, worker: "frozen", lease: .milliseconds(200)).first?.lease)
            clock.advance(by: .seconds(1))
            _ = try await jobs.rescueExpired()
            let fresh = try #require(try await jobs.claim(limit: 1, worker: "healthy", lease: .seconds(60)).first?.lease)

            #expect(try await store.holds(stale) == false)
            #expect(try await store.holds(fresh))
            let answer = WorkStore.StoredTranscription(
                text: "Hello.", segments: [], words: [], encodedBytes: 0, backend: "test", model: "m", usageSeconds: 60, costUSD: nil)
            var english = answer
            english.language = "en"
            await #expect(throws: StoreError.self) {
                try await store.replaceAnswer(stale, chunkID: chunk, chapterID: chapter, with: english, paidAgain: 30, costAgain: nil)
            }
            let kept = try await client.query("SELECT text, language FROM chunks WHERE id = \(chunk)").single()
            #expect(try kept.decode("text", as: String.self) == "Bonjour.", "a lost lease overwrote the chunk's answer")
            #expect(try kept.decode("language", as: String.self) == "fr")
            let paid: Double = try await client.query("SELECT coalesce(sum(paid_seconds), 0)::float8 AS paid FROM tenant_usage").single().decode("paid")
            #expect(paid == 30, "the ask was paid for, and is counted once")

            try await store.replaceAnswer(fresh, chunkID: chunk, chapterID: chapter, with: english, paidAgain: 30, costAgain: nil)
            let replaced = try await client.query("SELECT text, language FROM chunks WHERE id = \(chunk)").single()
            #expect(try replaced.decode("text", as: String.self) == "Hello.")
            #expect(try replaced.decode("language", as: String.self) == "en")
        }
    }
}
