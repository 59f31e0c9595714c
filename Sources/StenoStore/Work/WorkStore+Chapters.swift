import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// What the chapter and merge jobs read.
    public struct ChapterRecord: Sendable {
        public var id: Int64
        public var mediaID: Int64
        public var index: Int
        /// Where it lies on the media's clock.
        public var span: Range<MediaTime>
        public var state: ChapterState
        public var mediaState: MediaState
        public var mediaPriority: JobPriority
        public var source: String
        /// What the store held when the media was enqueued, for a source in the store.
        public var sourceObject: SourceObject? = nil

        /// Cancelled here or on its media: a job for it ends without work.
        public var isCancelled: Bool { state == .cancelled || mediaState == .cancelled }
    }

    public func chapter(_ id: Int64) async throws -> ChapterRecord? {
        guard let row = try await client.query(
            """
            SELECT c.id, c.media_id, c.index, c.start_seconds, c.end_seconds, c.state,
                   m.state AS media_state, m.priority AS media_priority, m.source, \(Self.sourceObjectColumns)
            FROM chapters c JOIN media m ON m.id = c.media_id
            WHERE c.id = \(id)
            """
        ).first else { return nil }
        return ChapterRecord(
            id: try row.decode("id"), mediaID: try row.decode("media_id"), index: try row.decode("index"),
            span: Range(storedSeconds: try row.decode("start_seconds"), try row.decode("end_seconds")), state: try row.decode("state"),
            mediaState: try row.decode("media_state"), mediaPriority: try row.decode("media_priority"),
            source: try row.decode("source"), sourceObject: try Self.sourceObject(row))
    }

    /// `queued` -> `planning`.
    public func markPlanning(_ chapterID: Int64) async throws {
        try await client.query(
            "UPDATE chapters SET state = \(literal: ChapterState.planning), updated_at = now() WHERE id = \(chapterID) AND state = \(literal: ChapterState.queued)")
    }

    /// Stores the planned chunks and one chunk job each, moves the chapter to `transcribing` and
    /// completes the chapter job, all at once; a second run adds nothing.
    public func storePlan(_ lease: JobLease, chapter: ChapterRecord, chunks: [PlannedChunk]) async throws {
        try await client.withTransaction { connection in
            try await connection.query(
                """
                INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, speech, speech_seconds, uploaded,
                                    state, text, segments, words, finished_at)
                SELECT \(chapter.mediaID), \(chapter.id), index, start_seconds, end_seconds, speech::jsonb, speech_seconds, uploaded,
                       CASE WHEN uploaded THEN \(literal: ChunkState.queued) ELSE \(literal: ChunkState.succeeded) END,
                       CASE WHEN uploaded THEN NULL ELSE '' END,
                       CASE WHEN uploaded THEN NULL ELSE '[]'::jsonb END,
                       CASE WHEN uploaded THEN NULL ELSE '[]'::jsonb END,
                       CASE WHEN uploaded THEN NULL ELSE now() END
                FROM unnest(\(chunks.map(\.index))::integer[], \(chunks.map(\.start.seconds))::float8[], \(chunks.map(\.end.seconds))::float8[],
                            \(chunks.map { try Self.json($0.speech) })::text[], \(chunks.map(\.speechSeconds))::float8[], \(chunks.map(\.uploaded))::boolean[])
                     AS i(index, start_seconds, end_seconds, speech, speech_seconds, uploaded)
                ON CONFLICT (chapter_id, index) DO NOTHING
                """)
            try await insertChunkJobs(chapterID: chapter.id, priority: chapter.mediaPriority, on: connection)
            try await connection.query(
                """
                UPDATE chapters SET state = \(literal: ChapterState.transcribing), updated_at = now()
                WHERE id = \(chapter.id) AND state IN (\(literals: [ChapterState.queued, .planning]))
                """)
            // A chapter with no speech at all has nothing to send: it goes straight to its merge.
            _ = try await enqueueMergeIfDone(chapterID: chapter.id, mediaID: chapter.mediaID, priority: chapter.mediaPriority, on: connection)
            try await complete(lease, on: connection)
        }
    }

    /// One job for every queued chunk of the chapter that has none yet.
    func insertChunkJobs(chapterID: Int64, priority: JobPriority, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO jobs (kind, priority, media_id, chapter_id, chunk_id, fair_key)
            SELECT \(literal: JobKind.chunk), \(priority.rawValue), k.media_id, k.chapter_id, k.id,
                   row_number() OVER (ORDER BY k.start_seconds) - 1
            FROM chunks k
            WHERE k.chapter_id = \(chapterID) AND k.state = \(literal: ChunkState.queued)
              AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.chunk_id = k.id AND j.kind = \(literal: JobKind.chunk))
            ORDER BY k.start_seconds
            """)
    }
}
