import Foundation
import StenoCore
import StenoPostgres

extension Lifecycle {
    /// A media cancelled by request: it, its unfinished chapters and its queued or running
    /// chunks become `cancelled`. The caller holds the media's row and knows it is unfinished.
    static func cancelMedia(_ mediaID: Int64, reason: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            WITH media_cancelled AS (
                UPDATE media SET state = \(literal: MediaState.cancelled), error_class = \(literal: FailureClass.cancelled), error_message = \(reason),
                                 finished_at = now(), updated_at = now()
                WHERE id = \(mediaID)
            ), chapters_cancelled AS (
                UPDATE chapters SET state = \(literal: ChapterState.cancelled), finished_at = now(), updated_at = now()
                WHERE media_id = \(mediaID) AND state NOT IN (\(literals: [ChapterState.succeeded, .failed, .cancelled]))
            )
            UPDATE chunks SET state = \(literal: ChunkState.cancelled), finished_at = now(), updated_at = now()
            WHERE media_id = \(mediaID) AND state IN (\(literals: [ChunkState.queued, .running]))
            """)
    }

    /// One chapter cancelled by request, with its queued or running chunks; `false` when it had
    /// finished already and nothing changed.
    static func cancelChapter(_ chapterID: Int64, reason: String, on connection: PostgresConnection) async throws -> Bool {
        let row = try await connection.query(
            """
            WITH chapter_cancelled AS (
                UPDATE chapters SET state = \(literal: ChapterState.cancelled), error_class = \(literal: FailureClass.cancelled), error_message = \(reason),
                                    finished_at = now(), updated_at = now()
                WHERE id = \(chapterID) AND state NOT IN (\(literals: [ChapterState.succeeded, .failed, .cancelled]))
                RETURNING id
            ), chunks_cancelled AS (
                UPDATE chunks SET state = \(literal: ChunkState.cancelled), finished_at = now(), updated_at = now()
                WHERE chapter_id = \(chapterID) AND state IN (\(literals: [ChunkState.queued, .running]))
            )
            SELECT count(*) AS cancelled FROM chapter_cancelled
            """
        ).single()
        return try row.decode("cancelled", as: Int.self) > 0
    }
}
