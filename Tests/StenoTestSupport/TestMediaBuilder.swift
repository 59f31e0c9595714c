import Foundation
public import StenoPostgres

/// Writes the rows a worker would write for a media (chapters, chunks, segments, jobs and their
/// attempts), in whatever state a test needs, straight into the database.
///
/// Jobs follow the entities' states: a succeeded chunk has a succeeded chunk job with its
/// attempts, a failed one a failed job whose earlier attempts were retried, a running one a
/// running job leased by `TestMediaBuilder.worker`, a split one a job that failed as too large.
public enum TestMediaBuilder {
    public static let worker = "worker-test-1"

    public struct Word: Sendable {
        public var word: String
        public var start: Double
        public var end: Double
        public init(_ word: String, _ start: Double, _ end: Double) {
            self.word = word
            self.start = start
            self.end = end
        }
    }

    public struct Segment: Sendable {
        public var start: Double
        public var end: Double
        public var text: String
        public var words: [Word]?
        public init(_ start: Double, _ end: Double, _ text: String, words: [Word]? = nil) {
            self.start = start
            self.end = end
            self.text = text
            self.words = words
        }
    }

    public struct Chunk: Sendable {
        public var start: Double
        public var end: Double
        public var state: String
        public var costUSD: Double?
        public var model: String?
        public var backend: String?
        /// Attempts the chunk job made; the last one ended as the state says.
        public var attempts: Int
        public var errorClass: String?
        public var errorMessage: String?
        public var httpStatus: Int?
        /// Seconds before now that the chunk finished; default: the media's finish, else 10 minutes ago.
        public var finishedAgo: Double?

        public init(
            _ start: Double, _ end: Double, state: String = "succeeded", costUSD: Double? = nil, model: String? = "whisper-1",
            backend: String? = "openai", attempts: Int? = nil, errorClass: String? = nil, errorMessage: String? = nil,
            httpStatus: Int? = nil, finishedAgo: Double? = nil
        ) {
            self.start = start
            self.end = end
            self.state = state
            self.costUSD = costUSD
            self.model = model
            self.backend = backend
            self.attempts = attempts ?? (state == "queued" ? 0 : 1)
            self.errorClass = errorClass
            self.errorMessage = errorMessage
            self.httpStatus = httpStatus
            self.finishedAgo = finishedAgo
        }
    }

    public struct Chapter: Sendable {
        public var title: String?
        public var start: Double
        public var end: Double
        public var state: String
        public var text: String?
        public var chunks: [Chunk]
        public var segments: [Segment]
        public var errorClass: String?
        public var errorMessage: String?

        public init(
            _ title: String?, _ start: Double, _ end: Double, state: String = "succeeded", text: String? = nil,
            chunks: [Chunk] = [], segments: [Segment] = [], errorClass: String? = nil, errorMessage: String? = nil
        ) {
            self.title = title
            self.start = start
            self.end = end
            self.state = state
            self.text = text
            self.chunks = chunks
            self.segments = segments
            self.errorClass = errorClass
            self.errorMessage = errorMessage
        }
    }

    public struct Media: Sendable {
        public var source: String
        public var title: String?
        public var state: String
        public var priority: Int
        public var durationSeconds: Double?
        public var createdAgo: Double
        public var finishedAgo: Double?
        public var errorClass: String?
        public var errorMessage: String?
        public var chapters: [Chapter]

        public init(
            _ source: String, title: String? = nil, state: String = "succeeded", priority: Int = 0, durationSeconds: Double? = nil,
            createdAgo: Double = 3600, finishedAgo: Double? = nil, errorClass: String? = nil, errorMessage: String? = nil,
            chapters: [Chapter] = []
        ) {
            self.source = source
            self.title = title
            self.state = state
            self.priority = priority
            self.durationSeconds = durationSeconds ?? chapters.last.map(\.end)
            self.createdAgo = createdAgo
            self.finishedAgo = finishedAgo ?? (["succeeded", "failed", "cancelled"].contains(state) ? 60 : nil)
            self.errorClass = errorClass
            self.errorMessage = errorMessage
            self.chapters = chapters
        }
    }

    public struct Inserted: Sendable {
        public var mediaID: Int64
        public var mediaJobID: Int64
        public var chapterIDs: [Int64]
        public var chapterJobIDs: [Int64?]
        public var chunkIDs: [[Int64]]
        public var chunkJobIDs: [[Int64]]
        public var mergeJobIDs: [Int64?]
    }

    @discardableResult
    public static func insert(_ media: Media, into client: PostgresClient) async throws -> Inserted {
        let mediaID: Int64 = try await client.query(
            """
            INSERT INTO media (source, title, state, priority, duration_seconds, error_class, error_message, created_at, updated_at, finished_at)
            VALUES (\(media.source), \(media.title), \(media.state), \(media.priority), \(media.durationSeconds), \(media.errorClass), \(media.errorMessage), now() - make_interval(secs => \(media.createdAgo)), now(),
                    CASE WHEN \(media.finishedAgo)::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => \(media.finishedAgo)::float8) END)
            RETURNING id
            """
        ).single().decode("id")

        let hasChapters = !media.chapters.isEmpty
        let mediaJobState: String = switch media.state {
        case "queued": "queued"
        case "probing": "running"
        case "failed", "cancelled": hasChapters ? "succeeded" : media.state
        default: "succeeded"
        }
        let mediaJobID = try await insertJob(
            client, kind: "media", state: mediaJobState, priority: media.priority, mediaID: mediaID,
            attempts: mediaJobState == "queued" ? 0 : 1, errorClass: hasChapters ? nil : media.errorClass,
            errorMessage: hasChapters ? nil : media.errorMessage, finishedAgo: media.finishedAgo ?? 3000, createdAgo: media.createdAgo)

        var inserted = Inserted(mediaID: mediaID, mediaJobID: mediaJobID, chapterIDs: [], chapterJobIDs: [], chunkIDs: [], chunkJobIDs: [], mergeJobIDs: [])
        for (index, chapter) in media.chapters.enumerated() {
            let chapterID: Int64 = try await client.query(
                """
                INSERT INTO chapters (media_id, index, title, start_seconds, end_seconds, state, text, error_class, error_message, finished_at)
                VALUES (\(mediaID), \(index), \(chapter.title), \(chapter.start), \(chapter.end), \(chapter.state), \(chapter.text), \(chapter.errorClass), \(chapter.errorMessage),
                        CASE WHEN \(chapter.state) IN ('succeeded', 'failed', 'cancelled') THEN now() - make_interval(secs => \(media.finishedAgo ?? 600)) END)
                RETURNING id
                """
            ).single().decode("id")
            inserted.chapterIDs.append(chapterID)

            let hasChunks = !chapter.chunks.isEmpty
            let chapterJobState: String? = switch chapter.state {
            case "queued": "queued"
            case "planning": "running"
            case "failed", "cancelled": hasChunks ? "succeeded" : chapter.state
            default: "succeeded"
            }
            inserted.chapterJobIDs.append(
                try await insertJob(
                    client, kind: "chapter", state: chapterJobState!, priority: media.priority, mediaID: mediaID, chapterID: chapterID,
                    attempts: chapterJobState == "queued" ? 0 : 1, errorClass: hasChunks ? nil : chapter.errorClass,
                    errorMessage: hasChunks ? nil : chapter.errorMessage, finishedAgo: media.finishedAgo ?? 900, createdAgo: media.createdAgo))

            var chunkIDs: [Int64] = []
            var chunkJobIDs: [Int64] = []
            for (chunkIndex, chunk) in chapter.chunks.enumerated() {
                let finishedAgo = chunk.finishedAgo ?? media.finishedAgo ?? 600
                let finished = ["succeeded", "failed", "cancelled", "split"].contains(chunk.state)
                let chunkID: Int64 = try await client.query(
                    """
                    INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, state, model, backend,
                                        usage_seconds, cost_usd, error_class, error_message, finished_at)
                    VALUES (\(mediaID), \(chapterID), \(chunkIndex), \(chunk.start), \(chunk.end), \(chunk.state), \(chunk.model), \(chunk.backend),
                            CASE WHEN \(chunk.state) = 'succeeded' THEN \(chunk.end)::float8 - \(chunk.start)::float8 END, \(chunk.costUSD.map { String($0) }), \(chunk.errorClass), \(chunk.errorMessage),
                            CASE WHEN \(finished) THEN now() - make_interval(secs => \(finishedAgo)) END)
                    RETURNING id
                    """
                ).single().decode("id")
                chunkIDs.append(chunkID)
                let jobState = chunk.state == "split" ? "failed" : chunk.state
                chunkJobIDs.append(
                    try await insertJob(
                        client, kind: "chunk", state: jobState, priority: media.priority, mediaID: mediaID, chapterID: chapterID,
                        chunkID: chunkID, attempts: chunk.attempts,
                        errorClass: chunk.state == "split" ? "too_large" : chunk.errorClass,
                        errorMessage: chunk.state == "split" ? "HTTP 413: request entity too large" : chunk.errorMessage,
                        httpStatus: chunk.state == "split" ? 413 : chunk.httpStatus, finishedAgo: finishedAgo, createdAgo: media.createdAgo))
            }
            inserted.chunkIDs.append(chunkIDs)
            inserted.chunkJobIDs.append(chunkJobIDs)
            inserted.mergeJobIDs.append(
                chapter.state == "merging"
                    ? try await insertJob(
                        client, kind: "merge", state: "queued", priority: media.priority, mediaID: mediaID, chapterID: chapterID,
                        attempts: 0, finishedAgo: 0, createdAgo: 60)
                    : nil)

            for (segmentIndex, segment) in chapter.segments.enumerated() {
                let words = try segment.words.map { words in
                    String(decoding: try JSONSerialization.data(withJSONObject: words.map { ["word": $0.word, "start": $0.start, "end": $0.end] }), as: UTF8.self)
                }
                try await client.query(
                    "INSERT INTO segments (media_id, chapter_id, index, start_seconds, end_seconds, text, words) VALUES (\(mediaID), \(chapterID), \(segmentIndex), \(segment.start), \(segment.end), \(segment.text), \(words)::jsonb)")
            }
        }
        return inserted
    }

    /// A job in `state` with `attempts` attempts recorded: all but the last were retried after a
    /// transient error; the last one ended as the state says (or still runs).
    @discardableResult
    public static func insertJob(
        _ client: PostgresClient, kind: String, state: String, priority: Int = 0, mediaID: Int64? = nil, chapterID: Int64? = nil,
        chunkID: Int64? = nil, attempts: Int, errorClass: String? = nil, errorMessage: String? = nil, httpStatus: Int? = nil,
        finishedAgo: Double = 600, createdAgo: Double = 3600
    ) async throws -> Int64 {
        let running = state == "running"
        let finished = ["succeeded", "failed", "cancelled"].contains(state)
        let jobID: Int64 = try await client.query(
            """
            INSERT INTO jobs (kind, state, priority, attempt, max_attempts, media_id, chapter_id, chunk_id, lease_owner, lease_expires_at,
                              error_class, error_message, created_at, started_at, finished_at)
            VALUES (\(kind), \(state), \(priority), \(attempts), greatest(\(attempts), 5), \(mediaID), \(chapterID), \(chunkID),
                    CASE WHEN \(running) THEN \(worker) END, CASE WHEN \(running) THEN now() + interval '5 minutes' END,
                    \(errorClass), \(errorMessage), now() - make_interval(secs => \(createdAgo)),
                    CASE WHEN \(attempts) > 0 THEN now() - make_interval(secs => \(finishedAgo)::float8 + 30) END,
                    CASE WHEN \(finished) THEN now() - make_interval(secs => \(finishedAgo)) END)
            RETURNING id
            """
        ).single().decode("id")
        for attempt in stride(from: 1, through: attempts, by: 1) {
            let last = attempt == attempts
            let outcome: String? = last ? (running ? nil : (state == "queued" ? "retry" : state)) : "retry"
            let attemptClass = last ? errorClass : "transient"
            let attemptMessage = last ? errorMessage : "HTTP 503: backend busy"
            let attemptStatus = last ? httpStatus : 503
            let endedAgo = finishedAgo + Double(attempts - attempt) * 60
            try await client.query(
                """
                INSERT INTO job_attempts (job_id, attempt, worker, started_at, finished_at, outcome, error_class, http_status, message)
                VALUES (\(jobID), \(attempt), \(worker), now() - make_interval(secs => \(endedAgo)::float8 + 30),
                        CASE WHEN \(outcome)::text IS NULL THEN NULL ELSE now() - make_interval(secs => \(endedAgo)) END, \(outcome), \(outcome == "succeeded" ? nil : attemptClass), \(attemptStatus.map { $0 } as Int?), \(outcome == "succeeded" ? nil : attemptMessage))
                """)
        }
        return jobID
    }

    /// A row in `workers`, last heard from `heartbeatAgo` seconds ago.
    public static func insertWorker(
        _ client: PostgresClient, id: String, version: String = "0.1.0", status: String = "running", heartbeatAgo: Double = 5,
        jobsInFlight: Int = 0, pausedBackendsJSON: String = "{}"
    ) async throws {
        try await client.query(
            """
            INSERT INTO workers (id, hostname, pid, version, status, jobs_in_flight, paused_backends, last_heartbeat_at)
            VALUES (\(id), \("host-" + id), 4242, \(version), \(status), \(jobsInFlight), \(pausedBackendsJSON)::jsonb, now() - make_interval(secs => \(heartbeatAgo)))
            """)
    }
}
