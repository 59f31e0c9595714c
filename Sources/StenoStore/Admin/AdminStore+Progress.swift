public import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension AdminStore {
    /// Which media `steno list` shows, newest first.
    public struct MediaFilter: Sendable, Equatable {
        public var states: [MediaState]?
        public var createdSince: Date?
        /// Keyset paging: only media with a smaller id (those listed after it).
        public var beforeID: Int64?
        public var limit: Int
        public var offset: Int
        /// Only this tenant's media; nil for every tenant's (the CLI).
        public var tenant: String?
        /// Only media whose title or source contains this text (case-insensitive).
        public var text: String?
        /// Only media of these priorities.
        public var priorities: [JobPriority]?

        public init(
            states: [MediaState]? = nil, createdSince: Date? = nil, beforeID: Int64? = nil, limit: Int = 50, offset: Int = 0,
            tenant: String? = nil, text: String? = nil, priorities: [JobPriority]? = nil
        ) {
            self.tenant = tenant
            self.text = text
            self.priorities = priorities
            self.states = states
            self.createdSince = createdSince
            self.beforeID = beforeID
            self.limit = limit
            self.offset = offset
        }
    }

    /// The progress of one media; `notFound` when there is none.
    public func progress(of mediaID: Int64) async throws -> MediaProgress {
        guard let progress = try await progress(of: [mediaID]).first else { throw Self.noSuchMedia(mediaID) }
        return progress
    }

    /// The progress of the media that exist among `mediaIDs`, in id order.
    public func progress(of mediaIDs: [Int64]) async throws -> [MediaProgress] {
        try await client.query("SELECT * FROM steno_progress WHERE media_id = ANY(\(mediaIDs)::bigint[]) ORDER BY media_id")
            .map(MediaProgress.init(row:))
    }

    /// The chapters of a media, in order.
    public func chapterProgress(of mediaID: Int64) async throws -> [ChapterProgress] {
        try await client.query("SELECT * FROM steno_chapter_progress WHERE media_id = \(mediaID) ORDER BY number")
            .map(ChapterProgress.init(row:))
    }

    /// Media matching `filter`, newest first.
    public func list(_ filter: MediaFilter) async throws -> [MediaProgress] {
        let states: [String]? = filter.states.map { $0.map(\.rawValue) }
        let priorities: [Int]? = filter.priorities.map { $0.map { Int($0.rawValue) } }
        // The media are chosen from the table (its indexes), and only the page's progress is computed.
        let pattern = filter.text.map { "%" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%" }
        return try await client.query(
            """
            SELECT * FROM steno_progress WHERE media_id IN (
                SELECT id FROM media
                WHERE (\(states)::text[] IS NULL OR state = ANY(\(states)::text[]))
                  AND (\(filter.createdSince)::timestamptz IS NULL OR created_at >= \(filter.createdSince)::timestamptz)
                  AND (\(filter.beforeID)::bigint IS NULL OR id < \(filter.beforeID)::bigint)
                  AND (\(filter.tenant)::text IS NULL OR tenant = \(filter.tenant)::text)
                  AND (\(priorities)::smallint[] IS NULL OR priority = ANY(\(priorities)::smallint[]))
                  AND (\(pattern)::text IS NULL OR title ILIKE \(pattern)::text OR source ILIKE \(pattern)::text)
                ORDER BY id DESC
                LIMIT \(filter.limit) OFFSET \(filter.offset))
            ORDER BY media_id DESC
            """
        ).map(MediaProgress.init(row:))
    }

    /// How many media there are in each state.
    public func mediaCountsByState() async throws -> [MediaState: Int] {
        var counts: [MediaState: Int] = [:]
        for row in try await client.query("SELECT state, count(*) AS media FROM media GROUP BY state") {
            counts[try row.decode("state", as: MediaState.self)] = try row.decode("media")
        }
        return counts
    }
}

extension MediaProgress {
    init(row: PostgresRow) throws(PostgresError) {
        self.init(
            mediaID: try row.decode("media_id"), title: try row.decode("title"),
            source: SecretRedactor.redactURLCredentials(in: try row.decode("source")),
            state: try row.decode("state"), stage: try row.decode("stage"), priority: try row.decode("priority"),
            durationSeconds: try row.decode("duration_seconds"), chapters: try row.decode("chapters"),
            chaptersDone: try row.decode("chapters_done"), chaptersFailed: try row.decode("chapters_failed"),
            chunks: try row.decode("chunks"), chunksDone: try row.decode("chunks_done"), chunksFailed: try row.decode("chunks_failed"),
            percent: try row.decode("percent"), attempts: try row.decode("attempts"), failedJobs: try row.decode("failed_jobs"),
            activeJobs: try row.decode("active_jobs"), costUSD: try row.decode("cost_usd"),
            estimatedCostUSD: try row.decode("estimated_cost_usd"), errorClass: try row.decode("error_class"),
            errorMessage: try row.decode("error_message"),
            chapterSelection: ChapterSelection(storedIndexes: try row.decode("chapter_selection", as: [Int]?.self)).description,
            focusChapter: try row.decode("focus_chapter", as: Int?.self).map { $0 + 1 },
            createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"), finishedAt: try row.decode("finished_at"),
            speechSeconds: try row.decode("speech_seconds"), paidSeconds: try row.decode("paid_seconds"))
        language = try row.decode("language")
        languageDetected = try row.decode("language_detected")
        multilingual = try row.decode("multilingual")
        translate = try row.decode("translate")
    }
}

extension ChapterProgress {
    init(row: PostgresRow) throws(PostgresError) {
        self.init(
            chapterID: try row.decode("chapter_id"), number: try row.decode("number"), title: try row.decode("title"),
            state: try row.decode("state"), stage: try row.decode("stage"), startSeconds: try row.decode("start_seconds"),
            endSeconds: try row.decode("end_seconds"), chunks: try row.decode("chunks"), chunksDone: try row.decode("chunks_done"),
            chunksFailed: try row.decode("chunks_failed"), percent: try row.decode("percent"), attempts: try row.decode("attempts"),
            failedJobs: try row.decode("failed_jobs"), activeJobs: try row.decode("active_jobs"), priority: try row.decode("priority"),
            costUSD: try row.decode("cost_usd"), estimatedCostUSD: try row.decode("estimated_cost_usd"),
            errorClass: try row.decode("error_class"), errorMessage: try row.decode("error_message"),
            speechSeconds: try row.decode("speech_seconds"), paidSeconds: try row.decode("paid_seconds"))
    }
}

extension AdminStore {
    /// Why the media is not moving right now (a paused backend, jobs waiting to retry, no
    /// workers); empty when nothing holds it or it has finished.
    public func holds(of mediaID: Int64) async throws -> [MediaHold] {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        let row = try await client.query(
            """
            WITH media_jobs AS (
                -- Every job names its media (enqueue, chapter and chunk jobs alike), so this is
                -- one read of `jobs_media_idx`; `OR chapter_id IN (...)` made it a scan of every job.
                SELECT j.* FROM jobs j WHERE j.media_id = \(mediaID)
            ), retrying AS (
                SELECT * FROM media_jobs WHERE state = \(JobState.queued) AND attempt > 0 AND run_at > \(now) AND NOT runs_alone
            ), quarantined AS (
                SELECT * FROM media_jobs WHERE state IN (\(literals: [JobState.queued, .running])) AND runs_alone
            ), live AS (
                SELECT * FROM workers WHERE status <> \(WorkerState.stopped) AND last_heartbeat_at > \(now) - interval '60 seconds'
            )
            SELECT (SELECT state FROM media WHERE id = \(mediaID)) AS media_state,
                   (SELECT count(*) FROM media_jobs WHERE state = \(JobState.queued) AND kind = \(literal: JobKind.chunk)) AS queued_chunks,
                   (SELECT count(*) FROM retrying) AS retrying,
                   (SELECT min(run_at) FROM retrying) AS next_retry,
                   (SELECT COALESCE(max(attempt), 0) FROM retrying) AS highest_attempt,
                   (SELECT COALESCE(max(max_attempts), 0) FROM retrying) AS max_attempts,
                   (SELECT error_message FROM retrying ORDER BY updated_at DESC LIMIT 1) AS last_error,
                   (SELECT count(*) FROM live) AS live_workers,
                   (SELECT COALESCE(jsonb_object_agg(p.key, p.value), '{}'::jsonb)::text
                    FROM live, jsonb_each_text(live.paused_backends) AS p) AS paused,
                   (SELECT status_message FROM live WHERE status = \(WorkerState.paused) ORDER BY last_heartbeat_at DESC LIMIT 1) AS pause_message,
                   (SELECT count(*) FROM quarantined) AS quarantined,
                   (SELECT error_message FROM quarantined ORDER BY updated_at DESC LIMIT 1) AS quarantine_reason,
                   t.name AS tenant, steno_over_budget(t.name, \(now)) AS over_budget, t.max_in_flight,
                   (SELECT count(*) FROM jobs WHERE tenant = t.name AND state = \(literal: JobState.running) AND kind = \(literal: JobKind.chunk))
                       AS tenant_running_chunks,
                   \(now) AS now
            FROM (SELECT 1) AS one LEFT JOIN tenants t ON t.name = (SELECT tenant FROM media WHERE id = \(mediaID))
            """
        ).single()
        guard let state = try row.decode("media_state", as: MediaState?.self) else { throw Self.noSuchMedia(mediaID) }
        let pausedText: String = try row.decode("paused")
        let pausedStrings = (try? JSONDecoder().decode([String: String].self, from: Data(pausedText.utf8))) ?? [:]
        let formatter = ISO8601DateFormatter()
        let paused = pausedStrings.compactMapValues { formatter.date(from: $0) }
        let facts = MediaHold.Facts(
            mediaFinished: state.isFinished,
            queuedChunkJobs: try row.decode("queued_chunks"), retryingJobs: try row.decode("retrying"),
            nextRetryAt: try row.decode("next_retry"), highestAttempt: try row.decode("highest_attempt"),
            maxAttempts: try row.decode("max_attempts"), lastError: try row.decode("last_error"),
            liveWorkers: try row.decode("live_workers"), pausedBackends: paused, pauseMessage: try row.decode("pause_message"),
            quarantinedJobs: try row.decode("quarantined"), quarantineReason: try row.decode("quarantine_reason"))
        var withTenant = facts
        withTenant.tenant = try row.decode("tenant", as: String?.self) ?? NewMedia.defaultTenant
        withTenant.overBudget = try row.decode("over_budget")
        withTenant.tenantCap = try row.decode("max_in_flight")
        withTenant.tenantRunningChunks = try row.decode("tenant_running_chunks")
        return MediaHold.holds(withTenant, now: try row.decode("now"))
    }
}

extension AdminStore {
    /// The attempts of a media's jobs that did not succeed (failed, retried, rescued, cancelled,
    /// handed back, or still running), newest first: the media page's history.
    public func unsuccessfulAttempts(of mediaID: Int64, limit: Int = 50) async throws -> [MediaAttempt] {
        try await client.query(
            """
            SELECT j.kind, c.index + 1 AS chapter, k.index + 1 AS chunk, a.attempt, a.worker, a.started_at, a.finished_at, a.outcome,
                   a.error_class, a.http_status, a.message
            FROM jobs j JOIN job_attempts a ON a.job_id = j.id
            LEFT JOIN chapters c ON c.id = j.chapter_id LEFT JOIN chunks k ON k.id = j.chunk_id
            WHERE j.media_id = \(mediaID) AND a.outcome IS DISTINCT FROM \(literal: JobAttempt.Outcome.succeeded)
            ORDER BY a.started_at DESC, a.job_id DESC, a.attempt DESC
            LIMIT \(limit)
            """
        ).map { row in
            MediaAttempt(
                kind: try row.decode("kind"), chapter: try row.decode("chapter"), chunk: try row.decode("chunk"), attempt: try row.decode("attempt"),
                worker: try row.decode("worker"), startedAt: try row.decode("started_at"), finishedAt: try row.decode("finished_at"),
                outcome: try row.decode("outcome"), errorClass: try row.decode("error_class"), httpStatus: try row.decode("http_status"),
                message: try row.decode("message"))
        }
    }
}
