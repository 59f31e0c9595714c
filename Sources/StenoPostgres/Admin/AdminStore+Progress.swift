import Foundation
import StenoCore

extension ProgressStage: PostgresCodable {}

extension AdminStore {
    /// Which media `steno list` shows, newest first.
    public struct MediaFilter: Sendable, Equatable {
        public var states: [MediaState]?
        public var createdSince: Date?
        /// Keyset paging: only media with a smaller id (those listed after it).
        public var beforeID: Int64?
        public var limit: Int
        public var offset: Int

        public init(states: [MediaState]? = nil, createdSince: Date? = nil, beforeID: Int64? = nil, limit: Int = 50, offset: Int = 0) {
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
        try await client.query("SELECT * FROM steno_progress WHERE media_id = ANY($1::bigint[]) ORDER BY media_id", [mediaIDs])
            .map(MediaProgress.init(row:))
    }

    /// The chapters of a media, in order.
    public func chapterProgress(of mediaID: Int64) async throws -> [ChapterProgress] {
        try await client.query("SELECT * FROM steno_chapter_progress WHERE media_id = $1 ORDER BY number", [mediaID])
            .map(ChapterProgress.init(row:))
    }

    /// Media matching `filter`, newest first.
    public func list(_ filter: MediaFilter) async throws -> [MediaProgress] {
        try await client.query(
            """
            SELECT * FROM steno_progress
            WHERE ($1::text[] IS NULL OR state = ANY($1::text[]))
              AND ($2::timestamptz IS NULL OR created_at >= $2::timestamptz)
              AND ($3::bigint IS NULL OR media_id < $3::bigint)
            ORDER BY media_id DESC
            LIMIT $4 OFFSET $5
            """,
            [filter.states.map { $0.map(\.rawValue) }, filter.createdSince, filter.beforeID, filter.limit, filter.offset]
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
            createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"), finishedAt: try row.decode("finished_at"))
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
            errorClass: try row.decode("error_class"), errorMessage: try row.decode("error_message"))
    }
}
