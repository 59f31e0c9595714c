import Foundation
import StenoCore
import StenoPostgres

extension WorkStore {
    /// The succeeded chunks of a chapter, in time order, as the merge reads them.
    public func transcripts(ofChapter chapterID: Int64) async throws -> [ChunkTranscript] {
        let rows = try await client.query(
            """
            SELECT start_seconds, end_seconds, text, segments::text AS segments, words::text AS words, speech::text AS speech
            FROM chunks WHERE chapter_id = $1 AND state = 'succeeded'
            ORDER BY start_seconds, index
            """,
            [chapterID])
        return try rows.map { row in
            ChunkTranscript(
                start: try row.decode("start_seconds"), end: try row.decode("end_seconds"),
                text: try row.decode("text", as: String?.self) ?? "",
                segments: try Self.decodeJSON([TimedSegment].self, try row.decode("segments")) ?? [],
                words: try Self.decodeJSON([TimedWord].self, try row.decode("words")) ?? [],
                speech: try Self.decodeJSON([ClosedRange<Double>].self, try row.decode("speech")) ?? [])
        }
    }

    /// Replaces the chapter's segments by `sentences`, stores its text, marks it succeeded and
    /// completes the merge job; when it was the media's last chapter, finishes the media and
    /// sends `NOTIFY steno_media`. Returns the media's final state when this finished it.
    /// The media row is locked first, so that two chapters merging at once see each other.
    @discardableResult
    public func storeMerge(_ lease: JobLease, chapter: ChapterRecord, sentences: [MergedSentence]) async throws -> MediaState? {
        try await client.withTransaction { connection in
            try await connection.query("SELECT id FROM media WHERE id = $1 FOR UPDATE", [chapter.mediaID])
            try await connection.query("DELETE FROM segments WHERE chapter_id = $1", [chapter.id])
            try await connection.query(
                """
                INSERT INTO segments (media_id, chapter_id, index, start_seconds, end_seconds, text, words)
                SELECT $1, $2, i.position - 1, i.start_seconds, i.end_seconds, i.text, i.words::jsonb
                FROM unnest($3::float8[], $4::float8[], $5::text[], $6::text[])
                    WITH ORDINALITY AS i(start_seconds, end_seconds, text, words, position)
                """,
                [
                    chapter.mediaID, chapter.id, sentences.map(\.start), sentences.map(\.end), sentences.map(\.text),
                    try sentences.map { $0.words.isEmpty ? nil : try Self.json($0.words) },
                ])
            try await connection.query(
                """
                UPDATE chapters SET text = $2, state = 'succeeded', error_class = NULL, error_message = NULL,
                                    finished_at = now(), updated_at = now()
                WHERE id = $1 AND state <> 'cancelled'
                """,
                [chapter.id, sentences.map(\.text).joined(separator: " ")])
            try await complete(lease, on: connection)
            return try await finishMediaIfDone(chapter.mediaID, on: connection)
        }
    }

    /// Finishes a transcribing media whose chapters are all finished: failed when one failed,
    /// cancelled when all were cancelled, else succeeded; and notifies `steno_media`.
    func finishMediaIfDone(_ mediaID: Int64, on connection: PostgresConnection) async throws -> MediaState? {
        let rows = try await connection.query(
            """
            WITH counts AS (
                SELECT count(*) AS total,
                       count(*) FILTER (WHERE state = 'failed') AS failed,
                       count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
                       count(*) FILTER (WHERE state NOT IN ('succeeded', 'failed', 'cancelled')) AS open
                FROM chapters WHERE media_id = $1
            )
            UPDATE media m
            SET state = CASE WHEN c.cancelled = c.total THEN 'cancelled' WHEN c.failed > 0 THEN 'failed' ELSE 'succeeded' END,
                finished_at = now(), updated_at = now()
            FROM counts c
            WHERE m.id = $1 AND m.state = 'transcribing' AND c.open = 0 AND c.total > 0
            RETURNING m.state
            """,
            [mediaID])
        guard let row = rows.first else { return nil }
        try await connection.query("SELECT pg_notify($1, $2)", [JobStore.Channel.media, String(mediaID)])
        return try row.decode("state")
    }
}
