import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@Suite("AdminStore: streamed transcript export")
struct TranscriptExportTests {
    typealias Builder = TestMediaBuilder

    /// Three chapters: word times, a flagged segment, a gap in the indexes and a segment whose
    /// word times are not an array; one chapter not transcribed; one with a merged text.
    static func book() -> Builder.Media {
        let first = (0..<9).map { index -> Builder.Segment in
            let start = Double(index) * 4
            let words = [Builder.Word("Sentence", start, start + 0.6), Builder.Word("\(index)", start + 0.6, start + 0.9)]
            return Builder.Segment(start, start + 3.5, "Sentence \(index) of the first chapter, <with> & \"marks\".", words: words)
        }
        let third = (0..<5).map { index -> Builder.Segment in
            let start = 120 + Double(index) * 3
            return Builder.Segment(start, start + 2, "Third chapter line \(index).")
        }
        return Builder.Media(
            "/books/export.m4b", title: "Export Book", state: "transcribing",
            chapters: [
                .init("One", 0, 60, segments: first),
                .init("Two", 60, 120, state: "transcribing"),
                .init(nil, 120, 180, text: "The third chapter, merged.", segments: third),
            ])
    }

    @Test("every format in batches of 2 equals the whole transcript rendered; flagged text in JSON alone")
    func streamedEqualsRendered() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let inserted = try await Builder.insert(Self.book(), into: client)
            let first = inserted.chapterIDs[0]
            try await client.query("UPDATE segments SET flag = 'outside_speech' WHERE chapter_id = \(first) AND index = 2")
            try await client.query("DELETE FROM segments WHERE chapter_id = \(first) AND index = 5")
            try await client.query(#"UPDATE segments SET words = '{"not": "an array"}' WHERE chapter_id = \#(first) AND index = 7"#)
            let store = AdminStore(client: client)

            for chapter in [nil, 1, 3] {
                let whole = try await store.transcript(mediaID: inserted.mediaID, chapter: chapter)
                let source = try await store.transcriptSource(mediaID: inserted.mediaID, chapter: chapter)
                #expect(source.outline.chapters.map(\.number) == whole.chapters.map(\.number))
                for format in TranscriptFormat.allCases {
                    for batchSize in [2, 2000] {
                        var streamed = ""
                        var pieces = 0
                        try await store.exportTranscript(source, format: format, batchSize: batchSize) { piece in
                            streamed += piece
                            pieces += 1
                        }
                        #expect(streamed == (try format.render(whole)), "\(format), chapter \(chapter.map(String.init) ?? "all"), batches of \(batchSize)")
                        if chapter == 1, format != .txt, batchSize == 2 { #expect(pieces >= 4, "written as it is read") }
                    }
                }
            }
            let whole = try await store.transcript(mediaID: inserted.mediaID)
            #expect(whole.chapters[0].segments.count == 8)
            #expect(whole.chapters[0].segments[2].flag == .outsideSpeech)
            #expect(whole.chapters[0].segments[6].words == nil, "the malformed word times are left out")
            #expect(whole.chapters[1].segments.isEmpty)
            let json = try TranscriptFormat.json.render(whole)
            #expect(json.contains("\"flag\" : \"outside_speech\""))
            #expect(!(try TranscriptFormat.srt.render(whole)).contains("Sentence 2 "))
            #expect(try TranscriptFormat.json.render(whole) == TranscriptJSONFormatter().format(whole))
            let source = try await store.transcriptSource(mediaID: inserted.mediaID)
            #expect(source.chapterHasSegments == [true, false, true])
            #expect(source.untranscribedChapters.map(\.number) == [2])
            await client.shutdown()
        }
    }

    @Test("a chapter merged again while it is exported ends the export with transcript_changed, never a mix of the two")
    func mergedAgainDuringExport() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let inserted = try await Builder.insert(Self.book(), into: client)
            let store = AdminStore(client: client)
            let source = try await store.transcriptSource(mediaID: inserted.mediaID, chapter: 1)
            // The chapter is merged again, as a retry's merge job does, once the first batch is written.
            let chapterID = inserted.chapterIDs[0]
            try await client.query(
                "INSERT INTO jobs (kind, priority, media_id, chapter_id) VALUES ('merge', 1, \(inserted.mediaID), \(chapterID))")
            let job = try #require(try await JobStore(client: client).claim(limit: 1, worker: "merger", lease: .seconds(60), kinds: [.merge]).first)
            let work = WorkStore(client: client)
            let chapter = try #require(try await work.chapter(chapterID))
            let again = (0..<9).map { MergedSentence(start: Double($0) * 4, end: Double($0) * 4 + 3, text: "Merged again \($0).", words: []) }
            var written = ""
            var batches = 0
            let error = await #expect(throws: AdminError.self) {
                try await store.exportTranscript(source, format: .txt, batchSize: 2) { piece in
                    written += piece
                    batches += 1
                    if batches == 1 { try await work.storeMerge(try #require(job.lease), chapter: chapter, sentences: again) }
                }
            }
            #expect(error?.code == .transcriptChanged)
            #expect(error?.description.contains("chapter 1 of media \(inserted.mediaID) was transcribed again") == true)
            #expect(!written.contains("Merged again"), "the export wrote text of the second merge after the first's")

            // Exported again, it is the new transcript whole.
            var second = ""
            try await store.exportTranscript(try await store.transcriptSource(mediaID: inserted.mediaID, chapter: 1), format: .txt, batchSize: 2) {
                second += $0
            }
            #expect(second.contains("Merged again 0.") && second.contains("Merged again 8.") && !second.contains("first chapter"))
            await client.shutdown()
        }
    }

    @Test("a media without segments or text has no transcript to export")
    func noTranscript() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let inserted = try await Builder.insert(.init("/q.mp3", state: "transcribing", chapters: [.init("One", 0, 60, state: "transcribing")]), into: client)
            let store = AdminStore(client: client)
            await #expect(throws: AdminError.self) { try await store.transcriptSource(mediaID: inserted.mediaID) }
            await client.shutdown()
        }
    }
}
