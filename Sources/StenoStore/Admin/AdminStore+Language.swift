import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

/// Correcting a media's language: the media takes the new one and its chunks are transcribed
/// again in it.
extension AdminStore {
    /// What `transcribeAgain` requeued.
    public struct LanguageCorrection: Sendable, Equatable, Codable {
        public var mediaID: Int64
        /// The language now given (an ISO 639 code), or nil for `auto` and `multi`.
        public var language: String?
        public var multilingual: Bool
        /// Chunks transcribed again: every uploaded one not already answered in the given language.
        public var requeuedChunks: Int
        public var mediaState: MediaState
    }

    /// Gives a finished media `language` (or, with nil, `auto`, or `multi` when `multilingual`)
    /// and transcribes its chunks again: with a given language, each chunk whose answer is in
    /// another; with `auto` or `multi`, every chunk asked bare again. Their jobs go back to the
    /// queue with a fresh budget of attempts, their chapters and the media become active, and
    /// each chapter is merged again when its chunks are done. The new answers are paid for;
    /// the tenant's use of the day counts them as well as the first ones.
    public func transcribeAgain(
        mediaID: Int64, language: String?, multilingual: Bool, attemptBudget: Int = NewJob.defaultMaxAttempts
    ) async throws -> LanguageCorrection {
        try await withControlTransaction { connection in
            let state = try await currentState(of: mediaID, on: connection, forUpdate: true)
            guard state == .succeeded else {
                throw AdminError(
                    .wrongState, "media \(mediaID) is \(state.rawValue): its language is corrected once it has succeeded",
                    hint: state.isFinished
                        ? "steno retry \(mediaID) resumes it first" : "wait for it (steno wait \(mediaID)) or cancel it, then retry it")
            }
            // A statement of its own: the one below updates the media row again, and one
            // statement's two updates of a row keep only one.
            try await connection.query(
                "UPDATE media SET language = \(language), multilingual = \(multilingual), detected_language = NULL, updated_at = now() WHERE id = \(mediaID)")
            let row = try await connection.query(
                """
                WITH redo AS (
                    UPDATE chunks k
                    SET state = \(ChunkState.queued), error_class = NULL, error_message = NULL, finished_at = NULL, updated_at = now()
                    WHERE k.media_id = \(mediaID) AND k.uploaded AND k.state = \(ChunkState.succeeded)
                      AND (\(language)::text IS NULL OR k.language IS DISTINCT FROM \(language)::text)
                    RETURNING k.id, k.chapter_id
                ), jobs_back AS (
                    UPDATE jobs j
                    SET state = \(JobState.queued), run_at = \(time.now), max_attempts = j.attempt + \(attemptBudget), cancel_requested = false,
                        error_class = NULL, error_message = NULL, finished_at = NULL, updated_at = now()
                    FROM redo WHERE j.chunk_id = redo.id AND j.kind = \(literal: JobKind.chunk)
                    RETURNING j.id
                ), chapters_back AS (
                    UPDATE chapters c
                    SET state = \(ChapterState.transcribing), error_class = NULL, error_message = NULL, finished_at = NULL, updated_at = now()
                    WHERE c.id IN (SELECT chapter_id FROM redo)
                ), media_back AS (
                    UPDATE media m
                    SET state = \(MediaState.transcribing), error_class = NULL, error_message = NULL, finished_at = NULL, notified_at = NULL, updated_at = now()
                    WHERE m.id = \(mediaID) AND EXISTS (SELECT 1 FROM redo)
                    RETURNING m.state
                )
                SELECT (SELECT count(*) FROM redo)::integer AS chunks, (SELECT count(*) FROM jobs_back)::integer AS jobs,
                       COALESCE((SELECT state FROM media_back), \(state)) AS state
                """
            ).single()
            let chunks: Int = try row.decode("chunks")
            let jobs: Int = try row.decode("jobs")
            guard jobs == chunks else {
                throw AdminError(.wrongState, "media \(mediaID) has \(chunks) chunk(s) to transcribe again but \(jobs) job(s) for them; nothing was changed")
            }
            return LanguageCorrection(
                mediaID: mediaID, language: language, multilingual: multilingual, requeuedChunks: chunks, mediaState: try row.decode("state"))
        }
    }
}
