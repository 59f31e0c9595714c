import Foundation
import StenoCore
import StenoPostgres

/// How chunks, chapters and media follow their jobs: each rule written once, run inside the
/// caller's transaction by the worker's and the CLI's writes alike.
enum Lifecycle {
    /// Moves what an ended job worked on: a requeued job's chunk is `queued` again, a cancelled
    /// one's `cancelled`, and a job failed for good fails its chunk, chapter and media with the
    /// reason (a rescued one with a reason a person can act on: `steno retry` resumes it).
    static func follow(_ ended: EndedJob, failure: JobStore.Failure?, on connection: PostgresConnection) async throws {
        switch ended.state {
        case .queued:
            if let chunkID = ended.chunkID { try await requeueChunk(chunkID, on: connection) }
        case .cancelled:
            if let chunkID = ended.chunkID { try await cancelChunk(chunkID, on: connection) }
        case .failed:
            let reason = failure ?? JobStore.Failure(
                .lostLease,
                "the \(ended.kind.rawValue) job was taken back from a worker that stopped renewing its lease \(ended.attempt) times "
                    + "(workers crashed, were killed, or froze while running it); `steno retry` resumes it")
            try await fail(mediaID: ended.mediaID, chapterID: ended.chapterID, chunkID: ended.chunkID, reason, on: connection)
        case .running, .succeeded:
            break
        }
    }

    /// The rows a failed job worked on become `failed` with the reason (never a finished one);
    /// a media that fails is announced on `steno_media`.
    static func fail(
        mediaID: Int64?, chapterID: Int64?, chunkID: Int64?, _ failure: JobStore.Failure, on connection: PostgresConnection
    ) async throws {
        if let chunkID {
            try await connection.query(
                """
                UPDATE chunks SET state = \(literal: ChunkState.failed), error_class = \(failure.errorClass), error_message = \(failure.message),
                                  finished_at = now(), updated_at = now()
                WHERE id = \(chunkID) AND state NOT IN (\(literals: [ChunkState.succeeded, .cancelled, .split]))
                """)
        }
        if let chapterID {
            try await connection.query(
                """
                UPDATE chapters SET state = \(literal: ChapterState.failed), error_class = \(failure.errorClass), error_message = \(failure.message),
                                    finished_at = now(), updated_at = now()
                WHERE id = \(chapterID) AND state NOT IN (\(literals: [ChapterState.succeeded, .cancelled]))
                """)
        }
        if let mediaID {
            let failed = try await connection.query(
                """
                UPDATE media SET state = \(literal: MediaState.failed), error_class = \(failure.errorClass), error_message = \(failure.message),
                                 finished_at = now(), updated_at = now()
                WHERE id = \(mediaID) AND state NOT IN (\(literals: [MediaState.succeeded, .failed, .cancelled]))
                RETURNING id
                """)
            if !failed.isEmpty { try await announceFinished(mediaID, on: connection) }
        }
    }

    /// A chunk whose job went back to the queue is `queued` again.
    static func requeueChunk(_ chunkID: Int64, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE chunks SET state = \(literal: ChunkState.queued), updated_at = now() WHERE id = \(chunkID) AND state = \(literal: ChunkState.running)")
    }

    /// A chunk whose job was cancelled is `cancelled`, unless it finished.
    static func cancelChunk(_ chunkID: Int64, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE chunks SET state = \(literal: ChunkState.cancelled), finished_at = now(), updated_at = now()
            WHERE id = \(chunkID) AND state IN (\(literals: [ChunkState.queued, .running]))
            """)
    }

    /// Finishes a transcribing media whose chapters are all finished: failed when one failed,
    /// cancelled when all were cancelled, else succeeded; and announces it on `steno_media`.
    /// Returns the state it finished in, or nil when it is not done (or not transcribing).
    static func finishMediaIfDone(_ mediaID: Int64, on connection: PostgresConnection) async throws -> MediaState? {
        let rows = try await connection.query(
            """
            WITH counts AS (
                SELECT count(*) AS total,
                       count(*) FILTER (WHERE state = \(literal: ChapterState.failed)) AS failed,
                       count(*) FILTER (WHERE state = \(literal: ChapterState.cancelled)) AS cancelled,
                       count(*) FILTER (WHERE state NOT IN (\(literals: [ChapterState.succeeded, .failed, .cancelled]))) AS open
                FROM chapters WHERE media_id = \(mediaID)
            )
            UPDATE media m
            SET state = CASE WHEN c.cancelled = c.total THEN \(literal: MediaState.cancelled) WHEN c.failed > 0 THEN \(literal: MediaState.failed) ELSE \(literal: MediaState.succeeded) END,
                finished_at = now(), updated_at = now()
            FROM counts c
            WHERE m.id = \(mediaID) AND m.state = \(literal: MediaState.transcribing) AND c.open = 0 AND c.total > 0
            RETURNING m.state
            """)
        guard let row = rows.first else { return nil }
        // Done: the media's final speakers, numbered by first appearance in the recording.
        try await WorkStore.finalizeSpeakers(mediaID, on: connection)
        try await announceFinished(mediaID, on: connection)
        return try row.decode("state")
    }

    /// `NOTIFY steno_media` with the media's id: `steno wait` and webhooks react at once.
    /// Delivered when the caller's transaction commits.
    static func announceFinished(_ mediaID: Int64, on connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_notify(\(JobStore.Channel.media), \(String(mediaID)))")
    }
}
