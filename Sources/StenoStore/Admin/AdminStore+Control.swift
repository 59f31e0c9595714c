import Foundation
import Logging
public import StenoCore
import StenoPostgres

extension AdminStore {
    /// What `cancel` did.
    public struct CancelOutcome: Sendable, Equatable, Codable {
        public var mediaID: Int64
        /// 1-based; `nil` when the whole media was cancelled.
        public var chapter: Int?
        /// Queued jobs cancelled at once.
        public var cancelledJobs: Int
        /// Running jobs flagged; their workers stop them at their next check.
        public var flaggedRunningJobs: Int
        public var mediaState: MediaState
        /// The media (or chapter) had finished before: nothing was changed.
        public var alreadyFinished: Bool
    }

    /// Cancels a media, or one chapter of it: queued jobs at once, running ones by flag (their
    /// workers get a `NOTIFY steno_cancel`), and the media, chapter and chunk states to `cancelled`.
    /// The states change first, and commit, so that a worker finishing a job meanwhile sees the
    /// cancel; the jobs follow in a statement of their own, which takes no lock on chunks while
    /// holding jobs (a worker ending a job locks them in the other order).
    public func cancel(mediaID: Int64, chapter: Int? = nil, reason: String = "cancelled with steno cancel") async throws -> CancelOutcome {
        let (changed, chapterID, mediaState): (Bool, Int64?, MediaState) = try await withControlTransaction { connection in
            let state = try await currentState(of: mediaID, on: connection, forUpdate: true)
            guard let chapter else {
                guard !state.isFinished else { return (false, nil, state) }
                try await Lifecycle.cancelMedia(mediaID, reason: reason, on: connection)
                return (true, nil, MediaState.cancelled)
            }
            let chapterID = try await self.chapterID(mediaID: mediaID, number: chapter, on: connection)
            guard try await Lifecycle.cancelChapter(chapterID, reason: reason, on: connection) else { return (false, chapterID, state) }
            // When the last unfinished chapter was cancelled no worker will finish the media, so this does.
            return (true, chapterID, try await Lifecycle.finishMediaIfDone(mediaID, on: connection) ?? state)
        }
        guard changed else {
            return CancelOutcome(
                mediaID: mediaID, chapter: chapter, cancelledJobs: 0, flaggedRunningJobs: 0, mediaState: mediaState, alreadyFinished: true)
        }
        let result = try await jobs.cancel(.jobs(try await activeJobIDs(mediaID: mediaID, chapterID: chapterID)), reason: reason)
        try await notifyMediaChanged(mediaID)
        logger.info("cancelled", metadata: ["media.id": "\(mediaID)", "chapter": "\(chapter.map(String.init) ?? "all")"])
        return CancelOutcome(
            mediaID: mediaID, chapter: chapter, cancelledJobs: result.cancelledQueued, flaggedRunningJobs: result.flaggedRunning,
            mediaState: mediaState, alreadyFinished: false)
    }

    /// Queued and running jobs of the media (or of one chapter), including jobs that name only their chapter.
    private func activeJobIDs(mediaID: Int64, chapterID: Int64?) async throws -> [Int64] {
        try await client.query(
            """
            SELECT id FROM jobs
            WHERE state IN (\(literals: [JobState.queued, .running]))
              AND (CASE WHEN \(chapterID)::bigint IS NULL
                        THEN media_id = \(mediaID) OR chapter_id IN (SELECT id FROM chapters WHERE media_id = \(mediaID))
                        ELSE chapter_id = \(chapterID)::bigint END)
            ORDER BY id
            """
        ).map { try $0.decode("id", as: Int64.self) }
    }

    /// What `retry` did.
    public struct RetryOutcome: Sendable, Equatable, Codable {
        public var mediaID: Int64
        public var requeuedJobs: Int
        public var requeuedChunks: Int
        public var mediaState: MediaState
    }

    /// Requeues what failed or was cancelled in a media: those jobs go back to `queued` with a
    /// fresh budget of attempts, their chunks, chapters and the media back to an active state.
    /// Chunks that succeeded, and jobs of chunks that were split, are left alone.
    public func retry(mediaID: Int64, attemptBudget: Int = NewJob.defaultMaxAttempts) async throws -> RetryOutcome {
        try await withControlTransaction { connection in
            _ = try await currentState(of: mediaID, on: connection, forUpdate: true)
            let row = try await connection.query(
                """
                WITH requeued AS (
                    UPDATE jobs j
                    SET state = \(JobState.queued), run_at = \(time.now), max_attempts = j.attempt + \(attemptBudget), cancel_requested = false,
                        error_class = NULL, error_message = NULL, finished_at = NULL, updated_at = now()
                    WHERE (j.media_id = \(mediaID) OR j.chapter_id IN (SELECT id FROM chapters WHERE media_id = \(mediaID)))
                      AND j.state IN (\(literals: [JobState.failed, .cancelled]))
                      AND (j.chunk_id IS NULL OR EXISTS (
                              SELECT 1 FROM chunks k WHERE k.id = j.chunk_id AND k.state IN (\(literals: [ChunkState.failed, .cancelled]))))
                      AND (j.chapter_id IS NULL OR EXISTS (
                              SELECT 1 FROM chapters c WHERE c.id = j.chapter_id AND c.state <> \(ChapterState.succeeded)))
                      AND (j.kind <> \(literal: JobKind.media) OR NOT EXISTS (SELECT 1 FROM chapters c WHERE c.media_id = \(mediaID)))
                    RETURNING j.id, j.kind, j.chapter_id, j.chunk_id
                ), chunks_back AS (
                    UPDATE chunks k
                    SET state = \(ChunkState.queued), error_class = NULL, error_message = NULL, finished_at = NULL, updated_at = now()
                    FROM requeued r WHERE k.id = r.chunk_id
                    RETURNING k.id
                ), chapters_back AS (
                    UPDATE chapters c
                    SET state = r.next_state, error_class = NULL, error_message = NULL, finished_at = NULL, updated_at = now()
                    FROM (SELECT chapter_id,
                                 CASE WHEN bool_or(kind = \(literal: JobKind.chapter)) THEN \(literal: ChapterState.queued)
                                      WHEN bool_or(kind = \(literal: JobKind.chunk)) THEN \(literal: ChapterState.transcribing)
                                      ELSE \(literal: ChapterState.merging) END AS next_state
                          FROM requeued WHERE chapter_id IS NOT NULL GROUP BY chapter_id) AS r
                    WHERE c.id = r.chapter_id
                ), media_back AS (
                    UPDATE media m
                    SET state = CASE WHEN EXISTS (SELECT 1 FROM chapters c WHERE c.media_id = m.id) THEN \(literal: MediaState.transcribing) ELSE \(literal: MediaState.queued) END,
                        error_class = NULL, error_message = NULL, finished_at = NULL, notified_at = NULL, updated_at = now()
                    WHERE m.id = \(mediaID) AND m.state IN (\(literals: [MediaState.failed, .cancelled])) AND EXISTS (SELECT 1 FROM requeued)
                    RETURNING m.state
                )
                SELECT (SELECT count(*) FROM requeued) AS jobs,
                       (SELECT count(*) FROM chunks_back) AS chunks,
                       COALESCE((SELECT state FROM media_back), (SELECT state FROM media WHERE id = \(mediaID))) AS state
                """
            ).single()
            return RetryOutcome(
                mediaID: mediaID, requeuedJobs: try row.decode("jobs"), requeuedChunks: try row.decode("chunks"),
                mediaState: try row.decode("state"))
        }
    }

    /// Every media that failed, oldest first.
    public func failedMediaIDs() async throws -> [Int64] {
        try await client.query("SELECT id FROM media WHERE state = \(MediaState.failed) ORDER BY id").map { try $0.decode("id", as: Int64.self) }
    }

    /// What `delete` removed.
    public struct DeleteOutcome: Sendable, Equatable, Codable {
        public var mediaID: Int64
        public var flaggedRunningJobs: Int
        public var chapters: Int
        public var chunks: Int
        public var segments: Int
        public var jobs: Int
    }

    /// Cancels the media's jobs (flagging running ones, whose workers then write nothing), then
    /// deletes the media; chapters, chunks, segments, jobs and attempts go with it by cascade.
    public func delete(mediaID: Int64) async throws -> DeleteOutcome {
        _ = try await currentState(of: mediaID)
        let cancelled = try await jobs.cancel(.jobs(try await activeJobIDs(mediaID: mediaID, chapterID: nil)), reason: "media deleted")
        // The cascade locks media, chapters, chunks and jobs in that order while a worker that has
        // not seen the cancel yet may be writing a job and its chunk in the other order: one of
        // the two is then chosen as a deadlock victim. The victim's statement was rolled back
        // whole, so the delete is simply run again.
        let row = try await retryingConflicts { try await client.query(
            """
            WITH counted AS (
                SELECT (SELECT count(*) FROM chapters WHERE media_id = \(mediaID)) AS chapters,
                       (SELECT count(*) FROM chunks WHERE media_id = \(mediaID)) AS chunks,
                       (SELECT count(*) FROM segments WHERE media_id = \(mediaID)) AS segments,
                       (SELECT count(*) FROM jobs
                        WHERE media_id = \(mediaID) OR chapter_id IN (SELECT id FROM chapters WHERE media_id = \(mediaID))) AS jobs
            ), deleted AS (
                DELETE FROM media WHERE id = \(mediaID) RETURNING id
            )
            SELECT counted.*, (SELECT count(*) FROM deleted) AS deleted FROM counted
            """
        ).single() }
        guard try row.decode("deleted", as: Int.self) == 1 else { throw Self.noSuchMedia(mediaID) }
        try await notifyMediaChanged(mediaID)
        logger.info("deleted media", metadata: ["media.id": "\(mediaID)"])
        return DeleteOutcome(
            mediaID: mediaID, flaggedRunningJobs: cancelled.flaggedRunning, chapters: try row.decode("chapters"),
            chunks: try row.decode("chunks"), segments: try row.decode("segments"), jobs: try row.decode("jobs"))
    }

    /// What `focus` did.
    public struct FocusOutcome: Sendable, Equatable, Codable {
        public var mediaID: Int64
        public var chapter: Int
        /// The media's queued and running chapter jobs by their new priority.
        public var highJobs: Int
        public var mediumJobs: Int
        public var lowJobs: Int
        /// `false` while the media is not probed yet: the focus applies when its chapters appear.
        public var chaptersKnown: Bool
    }

    /// Puts the listener on chapter `number` (1-based): its queued and running jobs go to high
    /// priority, the next chapter's to medium, the other chapters' back to the media's priority.
    /// Stored on the media, so jobs created later follow it (trigger `jobs_follow_focus`).
    public func focus(mediaID: Int64, chapter number: Int) async throws -> FocusOutcome {
        guard number >= 1 else { throw AdminError(.invalidInput, "chapters are numbered from 1") }
        return try await withControlTransaction { connection in
            let state = try await currentState(of: mediaID, on: connection, forUpdate: true)
            guard !state.isFinished else {
                throw AdminError(.wrongState, "media \(mediaID) has already \(state.rawValue); there is nothing left to prioritise")
            }
            let known: Int = try await connection.query("SELECT count(*) AS chapters FROM chapters WHERE media_id = \(mediaID)")
                .single().decode("chapters")
            if known > 0 {
                _ = try await chapterID(mediaID: mediaID, number: number, on: connection)
            }
            let focusIndex = number - 1
            try await connection.query("UPDATE media SET focus_chapter = \(focusIndex), updated_at = now() WHERE id = \(mediaID)")
            let row = try await connection.query(
                """
                WITH changed AS (
                    UPDATE jobs j
                    SET priority = steno_focus_priority(\(focusIndex), c.index, m.priority), updated_at = now()
                    FROM chapters c JOIN media m ON m.id = c.media_id
                    WHERE j.chapter_id = c.id AND c.media_id = \(mediaID) AND j.state IN (\(literals: [JobState.queued, .running]))
                    RETURNING j.priority
                )
                SELECT count(*) FILTER (WHERE priority = 2) AS high,
                       count(*) FILTER (WHERE priority = 1) AS medium,
                       count(*) FILTER (WHERE priority = 0) AS low
                FROM changed
                """
            ).single()
            return FocusOutcome(
                mediaID: mediaID, chapter: number, highJobs: try row.decode("high"), mediumJobs: try row.decode("medium"),
                lowJobs: try row.decode("low"), chaptersKnown: known > 0)
        }
    }
}

extension AdminStore {
    /// A transaction of an operator's control (cancel, retry, focus), run again whole when
    /// PostgreSQL chose it as a deadlock victim. It locks the media's row, then its chapters,
    /// chunks and jobs, while a worker ending a chunk job locks its job and chunk and then the
    /// chapter and media it moves on: the two orders can deadlock (a cancel mid-upload did in
    /// CI, `AdminControlConflictTests`). The control, rolled back whole, is simply run again.
    func withControlTransaction<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await retryingConflicts { try await client.withTransaction(body) }
    }

    /// Runs `body` again (up to `attempts` times in all) when PostgreSQL chose it as a deadlock
    /// victim or aborted it for a serialization conflict: both roll the statement back whole.
    func retryingConflicts<Result>(attempts: Int = 4, _ body: () async throws -> Result) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as PostgresError where ["40P01", "40001"].contains(error.sqlState ?? "") && attempt < attempts {
                attempt += 1
                try await clock.sleep(for: .milliseconds(Int64.random(in: 10...50) * Int64(attempt)))
            }
        }
    }
}
