import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// What the chunk job reads.
    public struct ChunkRecord: Sendable {
        public var id: Int64
        public var mediaID: Int64
        public var chapterID: Int64
        public var index: Int
        /// Where it lies on the media's clock.
        public var span: Range<MediaTime>
        public var state: ChunkState
        public var chapterState: ChapterState
        public var mediaState: MediaState
        public var mediaPriority: JobPriority
        public var source: String
        /// The language the media's user gave, if any.
        public var language: String?
        /// The language settled for the media from its answers (`LanguageVote`), if any yet.
        public var detectedLanguage: String?
        /// `--language multi`: no language is settled; each chunk keeps its own.
        public var multilingual: Bool = false
        /// `--translate`: asked through the backend's translations endpoint; the answer is English.
        public var translate: Bool = false
        /// The media's own model (`steno enqueue --model`), else nil for the worker's.
        public var model: String?
        /// The media's prompt (`steno enqueue --prompt`).
        public var prompt: String?
        /// Where the chunk's audio holds speech (seconds on the media's clock), as planned;
        /// nil for chunks planned before speech detection.
        public var speech: [ClosedRange<Double>]?
        /// Whether the media's speakers are told apart (`steno enqueue --speakers off` turns it off).
        public var speakerDetection: Bool = true
        /// What the backend was paid for the chunk's answer so far, in seconds, where it said.
        public var usageSeconds: Double?
        /// What the chunk's answer cost so far, where the backend's price is known.
        public var costUSD: Double?
        /// What the store held when the media was enqueued, for a source in the store.
        public var sourceObject: SourceObject? = nil

        /// The language the chunk is asked in: the one given, else the one settled for its
        /// media; nil lets the backend detect it.
        public var askedLanguage: String? { translate ? nil : language ?? (multilingual ? nil : detectedLanguage) }

        /// Whether the media's language is the one its answers settle (`auto`): none was
        /// given, and it neither speaks several nor is translated.
        public var languageFromAnswers: Bool { language == nil && !multilingual && !translate }

        public var isCancelled: Bool { state == .cancelled || chapterState == .cancelled || mediaState == .cancelled }
    }

    /// A chunk's transcription as stored: text, segments and words on the media's clock, usage.
    public struct StoredTranscription: Sendable {
        public var text: String
        public var segments: [TimedSegment]
        public var words: [TimedWord]
        public var encodedBytes: Int
        public var backend: String
        public var model: String
        public var usageSeconds: Double?
        public var costUSD: Double?
        /// What the gates held back (`AnswerGate`), kept for audit.
        public var flagged: [FlaggedText]
        /// The speaker pass's windows of the chunk's audio; nil when not measured.
        public var voices: [SegmentedWindow]?
        /// The language the answer is in (ISO 639-1): the one asked, else the one the backend
        /// said it detected; nil when neither is known.
        public var language: String?

        public init(
            text: String, segments: [TimedSegment], words: [TimedWord], encodedBytes: Int, backend: String, model: String,
            usageSeconds: Double?, costUSD: Double?, flagged: [FlaggedText] = []
        ) {
            self.flagged = flagged
            self.text = text
            self.segments = segments
            self.words = words
            self.encodedBytes = encodedBytes
            self.backend = backend
            self.model = model
            self.usageSeconds = usageSeconds
            self.costUSD = costUSD
        }
    }

    public func chunk(_ id: Int64) async throws -> ChunkRecord? {
        guard let row = try await client.query(
            """
            SELECT k.id, k.media_id, k.chapter_id, k.index, k.start_seconds, k.end_seconds, k.state,
                   c.state AS chapter_state, m.state AS media_state, m.priority AS media_priority, m.source, m.language,
                   m.detected_language, m.multilingual, m.translate, m.model, m.prompt, k.speech::text AS speech, k.speech_seconds, m.speaker_detection,
                   k.usage_seconds, k.cost_usd::float8 AS cost_usd, \(Self.sourceObjectColumns)
            FROM chunks k JOIN chapters c ON c.id = k.chapter_id JOIN media m ON m.id = k.media_id
            WHERE k.id = \(id)
            """
        ).first else { return nil }
        return ChunkRecord(
            id: try row.decode("id"), mediaID: try row.decode("media_id"), chapterID: try row.decode("chapter_id"),
            index: try row.decode("index"), span: Range(storedSeconds: try row.decode("start_seconds"), try row.decode("end_seconds")),
            state: try row.decode("state"), chapterState: try row.decode("chapter_state"), mediaState: try row.decode("media_state"),
            mediaPriority: try row.decode("media_priority"), source: try row.decode("source"), language: try row.decode("language"),
            detectedLanguage: try row.decode("detected_language"), multilingual: try row.decode("multilingual"),
            translate: try row.decode("translate"),
            model: try row.decode("model"), prompt: try row.decode("prompt"),
            // Chunks planned before speech detection (no speech_seconds) hold loudness regions.
            speech: try row.decode("speech_seconds", as: Double?.self) == nil
                ? nil : try Self.decodeJSON([ClosedRange<Double>].self, try row.decode("speech")),
            speakerDetection: try row.decode("speaker_detection"), usageSeconds: try row.decode("usage_seconds"),
            costUSD: try row.decode("cost_usd"), sourceObject: try Self.sourceObject(row))
    }

    /// Whether a chunk job may transcribe its chunk.
    public enum ChunkStart: Sendable, Equatable {
        /// The chunk is `running` for this attempt.
        case started
        /// Another attempt has the chunk's answer and is writing it (`holdAnswer`): wait.
        case answerHeldElsewhere
        /// The chunk is finished, split, cancelled or gone.
        case notRunnable
    }

    /// Marks the chunk `running` for this attempt, unless it is finished or another attempt holds
    /// its answer. The chapter row is locked first, as every chunk write does.
    public func markRunning(chunkID: Int64, policy: RescuePolicy = RescuePolicy()) async throws -> ChunkStart {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        let held = Self.answerHeld(policy: policy, now: now)
        return try await client.withTransaction { connection in
            try await connection.query(
                "SELECT c.id FROM chapters c JOIN chunks k ON k.chapter_id = c.id WHERE k.id = \(chunkID) FOR UPDATE OF c")
            let started = try await connection.query(
                """
                UPDATE chunks SET state = \(literal: ChunkState.running), answer_held_until = NULL, answer_held_key = NULL, updated_at = now()
                WHERE id = \(chunkID) AND state IN (\(literals: [ChunkState.queued, .failed, .running])) AND NOT \(held)
                RETURNING id
                """)
            if !started.isEmpty { return .started }
            let holding = try await connection.query(
                """
                SELECT 1 FROM chunks
                WHERE id = \(chunkID) AND state IN (\(literals: [ChunkState.queued, .failed, .running])) AND \(held)
                """)
            return holding.isEmpty ? .notRunnable : .answerHeldElsewhere
        }
    }

    /// Whether the row of `chunks` has an answer still held: its mark has not run out, and the
    /// process that made it lives (its worker's liveness lock is held, under the key it made the
    /// mark with) or cannot be told dead yet (`lockLossProves`: just after a database restart a
    /// live worker may not have its lock again). A worker that registered again since (a
    /// supervisor's new child) has a new key: the answer died with the old process. A mark
    /// that names no holder (made before migration 0022) holds until it runs out.
    static func answerHeld(policy: RescuePolicy, now: PostgresQuery) -> PostgresQuery {
        """
        (answer_held_until IS NOT NULL AND answer_held_until > \(now)
         AND (answer_held_key IS NULL
              OR EXISTS (SELECT 1 FROM workers w WHERE w.liveness_key = chunks.answer_held_key
                         AND (\(JobStore.aliveOwner) OR NOT \(JobStore.lockLossProves(policy, now: now))))))
        """
    }

    /// Marks that an attempt has the chunk's answer and is about to write it, for `window`
    /// (the write's retry window), so that another attempt of the job waits for that write
    /// instead of uploading again; the mark names the process of the lease's worker (its
    /// liveness key), whose death ends it. One statement on the chunk's row alone: it does not
    /// wait on the chapter's lock as the write itself may.
    public func holdAnswer(chunkID: Int64, for window: Duration, by lease: JobLease) async throws {
        try await client.query(
            """
            UPDATE chunks SET answer_held_until = \(time.now) + make_interval(secs => \(window.seconds)::float8),
                              answer_held_key = (SELECT liveness_key FROM workers WHERE id = \(lease.owner))
            WHERE id = \(chunkID) AND state IN (\(literals: [ChunkState.queued, .failed, .running]))
            """)
    }

    /// Stores the transcription and completes the chunk job; when this was the chapter's last
    /// chunk to succeed, moves the chapter to `merging` and enqueues its merge job. Returns
    /// whether it did. The chapter row is locked first, so that two chunks finishing at once
    /// see each other and exactly one of them enqueues the merge.
    @discardableResult
    public func storeTranscription(_ lease: JobLease, chunk: ChunkRecord, _ stored: StoredTranscription) async throws -> AnswerDisposal {
        try await client.withTransaction { connection in
            try await connection.query("SELECT id FROM chapters WHERE id = \(chunk.chapterID) FOR UPDATE")
            let state = try await connection.query("SELECT state FROM chunks WHERE id = \(chunk.id) FOR UPDATE")
                .first.map { try $0.decode("state", as: ChunkState.self) }
            if let reason = AnswerDisposal.discardReason(forChunkState: state) {
                // A write retried after the connection broke may find its own first try committed.
                let ours = try await connection.query(
                    "SELECT 1 AS ours FROM job_attempts WHERE job_id = \(lease.jobID) AND attempt = \(lease.attempt) AND outcome = \(literal: JobAttempt.Outcome.succeeded)")
                if reason == .alreadyAnswered && !ours.isEmpty { return .stored(mergeEnqueued: false) }
                // The reason is recorded in `job_attempts` when the handler ends the attempt.
                return .discarded(reason)
            }
            // Written whether or not the attempt still holds its lease: any answer for this
            // audio is as good as another, and it has been paid for.
            try await connection.query(
                """
                UPDATE chunks
                SET text = \(stored.text), segments = \(Self.json(stored.segments))::jsonb, words = \(stored.words.isEmpty ? nil : Self.json(stored.words))::jsonb, encoded_bytes = \(stored.encodedBytes), backend = \(stored.backend), model = \(stored.model),
                    usage_seconds = \(stored.usageSeconds), cost_usd = \(stored.costUSD), flagged = \(stored.flagged.isEmpty ? nil : Self.json(stored.flagged))::jsonb,
                    voices = decode(\(stored.voices.map { Data(SegmentedWindow.encode($0)).base64EncodedString() }), 'base64'),
                    state = \(literal: ChunkState.succeeded), error_class = NULL, error_message = NULL,
                    answer_held_until = NULL, answer_held_key = NULL, language = \(stored.language), finished_at = now(), updated_at = now()
                WHERE id = \(chunk.id)
                """)
            if chunk.languageFromAnswers, chunk.detectedLanguage == nil, stored.language != nil {
                try await settleLanguage(mediaID: chunk.mediaID, besides: lease.jobID, on: connection)
            }
            let held = !(try await JobStore.end([lease], as: .succeeded(), now: time.now, on: connection)).isEmpty
            let merging = try await enqueueMergeIfDone(chapterID: chunk.chapterID, mediaID: chunk.mediaID, priority: chunk.mediaPriority, on: connection)
            return held ? .stored(mergeEnqueued: merging) : .keptAfterLeaseLost(mergeEnqueued: merging)
        }
    }

    /// Replaces a chunk whose encoding was over the upload limit by `pieces`, each a new chunk
    /// with its own job, and completes the job. A second run finds the chunk split already and
    /// only completes.
    public func storeSplit(_ lease: JobLease, chunk: ChunkRecord, pieces: [PlannedChunk]) async throws {
        try await client.withTransaction { connection in
            try await connection.query("SELECT id FROM chapters WHERE id = \(chunk.chapterID) FOR UPDATE")
            let split = try await connection.query(
                """
                UPDATE chunks SET state = \(literal: ChunkState.split), updated_at = now(), finished_at = now()
                WHERE id = \(chunk.id) AND state IN (\(literals: [ChunkState.queued, .running, .failed]))
                RETURNING id
                """)
            if !split.isEmpty {
                // Indexes only have to be unique per chapter; the merge orders chunks by time.
                try await connection.query(
                    """
                    INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, speech)
                    SELECT \(chunk.mediaID), \(chunk.chapterID), (SELECT max(index) FROM chunks WHERE chapter_id = \(chunk.chapterID)) + i.position, i.start_seconds, i.end_seconds, i.speech::jsonb
                    FROM unnest(\(pieces.map(\.start.seconds))::float8[], \(pieces.map(\.end.seconds))::float8[], \(pieces.map { try Self.json($0.speech) })::text[]) WITH ORDINALITY AS i(start_seconds, end_seconds, speech, position)
                    """)
                try await insertChunkJobs(chapterID: chunk.chapterID, priority: chunk.mediaPriority, on: connection)
            }
            try await complete(lease, on: connection)
        }
    }

    /// Moves the chapter to `merging` and enqueues its merge job when every chunk succeeded.
    func enqueueMergeIfDone(chapterID: Int64, mediaID: Int64, priority: JobPriority, on connection: PostgresConnection) async throws -> Bool {
        let merging = try await connection.query(
            """
            UPDATE chapters SET state = \(literal: ChapterState.merging), updated_at = now()
            WHERE id = \(chapterID) AND state = \(literal: ChapterState.transcribing)
              AND NOT EXISTS (SELECT 1 FROM chunks WHERE chapter_id = \(chapterID) AND state NOT IN (\(literals: [ChunkState.succeeded, .split])))
            RETURNING id
            """)
        guard !merging.isEmpty else { return false }
        try await connection.query(
            """
            INSERT INTO jobs (kind, priority, media_id, chapter_id)
            SELECT \(literal: JobKind.merge), \(priority.rawValue), \(mediaID), \(chapterID)
            WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE chapter_id = \(chapterID) AND kind = \(literal: JobKind.merge) AND state IN (\(literals: [JobState.queued, .running])))
            """)
        return true
    }
}
