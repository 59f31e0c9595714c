import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// The reader's window of a chapter: bounded, whatever the chapter's length.
@Suite("Transcript pages for the reader")
struct TranscriptPageTests {
    @Test("a long chapter is read a window at a time, from a segment or from a moment")
    func windows() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 2)
            let store = AdminStore(client: client)
            let count = TranscriptPage.windowSize * 2 + 50
            var segments: [TestMediaBuilder.Segment] = []
            for index in 0..<count {
                let start = Double(index) * 5
                let word = TestMediaBuilder.Word("segment", start, start + 1)
                segments.append(TestMediaBuilder.Segment(start, start + 4, "segment \(index)", words: [word]))
            }
            let inserted = try await TestMediaBuilder.insert(
                .init("/books/long.m4b", title: "Long", chapters: [
                    .init("Opening", 0, 10, segments: [.init(0, 9, "the opening")]),
                    .init("Body", 10, Double(count * 5), segments: segments),
                ]), into: client)
            let id = inserted.mediaID
            try await client.query("UPDATE media SET tenant = 'acme' WHERE id = \(id)")

            let first = try await store.transcriptPage(mediaID: id, tenant: "acme", chapter: 2, from: nil, time: nil)
            #expect(first.chapters.map(\.number) == [1, 2])
            #expect(first.segments.count == TranscriptPage.windowSize)
            #expect(first.segments.first?.index == 0 && !first.hasEarlier && first.hasLater)
            #expect(first.segments.first?.words == [Transcript.Word(word: "segment", start: 0, end: 1)])

            let last = try await store.transcriptPage(mediaID: id, tenant: "acme", chapter: 2, from: TranscriptPage.windowSize * 2, time: nil)
            #expect(last.segments.count == 50 && last.hasEarlier && !last.hasLater)

            // At a moment: the chapter playing then, from a little before its segment.
            let moment = Double(700 * 5 + 2)
            let atMoment = try await store.transcriptPage(mediaID: id, tenant: "acme", chapter: nil, from: nil, time: moment)
            #expect(atMoment.chapter == 2)
            #expect(atMoment.segments.contains { $0.index == 700 })
            #expect(atMoment.segments.first?.index == TranscriptPage.windowStart(around: 700))
            #expect(TranscriptPage.windowStart(around: 700) < 700)

            let opening = try await store.transcriptPage(mediaID: id, tenant: "acme", chapter: nil, from: nil, time: 3)
            #expect(opening.chapter == 1 && opening.segments.map(\.text) == ["the opening"])
            await client.shutdown()
        }
    }

    @Test("another tenant's media and a chapter that does not exist are not found")
    func notFound() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 2)
            let store = AdminStore(client: client)
            let id = try await TestMediaBuilder.insert(
                .init("/books/a.m4b", chapters: [.init("One", 0, 10, segments: [.init(0, 9, "hello")])]), into: client
            ).mediaID
            await #expect(throws: AdminError.self) {
                _ = try await store.transcriptPage(mediaID: id, tenant: "other", chapter: nil, from: nil, time: nil)
            }
            do {
                _ = try await store.transcriptPage(mediaID: id, tenant: "default", chapter: 5, from: nil, time: nil)
                Issue.record("chapter 5 of a media of one chapter was found")
            } catch let error as AdminError {
                #expect(error.code == .notFound && error.message.contains("1 chapter"))
            }
            await client.shutdown()
        }
    }
}
