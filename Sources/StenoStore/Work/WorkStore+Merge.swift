import Foundation
public import StenoCore
import StenoPostgres

extension WorkStore {
    /// The succeeded chunks of a chapter, in time order, as the merge reads them.
    public func transcripts(ofChapter chapterID: Int64) async throws -> [ChunkTranscript] {
        let rows = try await client.query(
            """
            SELECT start_seconds, end_seconds, text, segments::text AS segments, words::text AS words, speech::text AS speech,
                   flagged::text AS flagged
            FROM chunks WHERE chapter_id = \(chapterID) AND state = \(literal: ChunkState.succeeded)
            ORDER BY start_seconds, index
            """)
        return try rows.map { row in
            ChunkTranscript(
                start: try row.decode("start_seconds"), end: try row.decode("end_seconds"),
                text: try row.decode("text", as: String?.self) ?? "",
                segments: try Self.decodeJSON([TimedSegment].self, try row.decode("segments")) ?? [],
                words: try Self.decodeJSON([TimedWord].self, try row.decode("words")) ?? [],
                speech: try Self.decodeJSON([ClosedRange<Double>].self, try row.decode("speech")) ?? [],
                flagged: try Self.decodeJSON([FlaggedText].self, try row.decode("flagged")) ?? [])
        }
    }

    /// Replaces the chapter's segments by `sentences`, stores its text, marks it succeeded and
    /// completes the merge job; when it was the media's last chapter, finishes the media and
    /// sends `NOTIFY steno_media`. Returns the media's final state when this finished it.
    /// The media row is locked first, so that two chapters merging at once see each other.
    /// With `speakers`, the chapter's voice groups get the media's speaker numbers under that
    /// lock (`storeSpeakers`) and the sentences are labelled, and split where the speaker changes.
    @discardableResult
    public func storeMerge(
        _ lease: JobLease, chapter: ChapterRecord, sentences: [MergedSentence], speakers: ChapterSpeakerPlan? = nil
    ) async throws -> MediaState? {
        try await client.withTransaction { connection in
            try await connection.query("SELECT id FROM media WHERE id = \(chapter.mediaID) FOR UPDATE")
            var sentences = sentences
            var groups = [Int?](repeating: nil, count: sentences.count)
            if let speakers {
                let resolved = try await storeSpeakers(speakers, chapter: chapter, on: connection)
                (sentences, groups) = SpeakerLabeling.label(sentences, groupedTurns: resolved.turns)
                // Grouped and summed into `chapter_voices`: the windows have served (a 40-hour
                // book would otherwise keep about 1 MB of them per hour of audio).
                try await connection.query("UPDATE chunks SET voices = NULL WHERE chapter_id = \(chapter.id) AND voices IS NOT NULL")
            } else if let turns = try await storedTurns(chapter.id, on: connection) {
                // Merged again with its windows gone (a merge job run twice, or chunks asked again
                // in another language): the turns it found stand, and what the chunks asked
                // again measured is dropped as the first merge dropped the rest.
                (sentences, groups) = SpeakerLabeling.label(sentences, groupedTurns: turns)
                try await connection.query("UPDATE chunks SET voices = NULL WHERE chapter_id = \(chapter.id) AND voices IS NOT NULL")
            }
            try await connection.query("DELETE FROM segments WHERE chapter_id = \(chapter.id)")
            // Counted with the segments it replaces: an export reading in batches sees the change.
            try await connection.query("UPDATE chapters SET merges = merges + 1 WHERE id = \(chapter.id)")
            try await connection.query(
                """
                INSERT INTO segments (media_id, chapter_id, index, start_seconds, end_seconds, text, words, flag, speaker, speaker_group)
                SELECT \(chapter.mediaID), \(chapter.id), i.position - 1, i.start_seconds, i.end_seconds, i.text, i.words::jsonb, i.flag, i.speaker, i.grp
                FROM unnest(\(sentences.map(\.start))::float8[], \(sentences.map(\.end))::float8[], \(sentences.map(\.text))::text[], \(sentences.map { $0.words.isEmpty ? nil : try Self.json($0.words) })::text[],
                            \(sentences.map { $0.flag?.rawValue })::text[], \(sentences.map(\.speaker))::int[], \(groups)::int[])
                    WITH ORDINALITY AS i(start_seconds, end_seconds, text, words, flag, speaker, grp, position)
                """)
            try await connection.query(
                """
                UPDATE chapters SET text = \(sentences.filter { $0.flag == nil }.map(\.text).joined(separator: " ")), state = \(literal: ChapterState.succeeded), error_class = NULL, error_message = NULL,
                                    finished_at = now(), updated_at = now()
                WHERE id = \(chapter.id) AND state <> \(literal: ChapterState.cancelled)
                """)
            try await complete(lease, on: connection)
            return try await Lifecycle.finishMediaIfDone(chapter.mediaID, on: connection)
        }
    }
}
