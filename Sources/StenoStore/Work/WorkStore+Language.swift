import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

/// One language per media (`LanguageVote`): settled from its chunks' answers, then asked in.
extension WorkStore {
    /// The language settled for a media whose language was not given, if it is settled yet.
    public func settledLanguage(mediaID: Int64) async throws -> String? {
        try await client.query(
            "SELECT detected_language FROM media WHERE id = \(mediaID) AND language IS NULL AND NOT multilingual AND NOT translate"
        ).first?.decode("detected_language")
    }

    /// Settles the media's language when its answers so far agree enough (`LanguageVote`):
    /// audio seconds of speech answered in each language, and whether every chunk is answered
    /// (no media, chapter or chunk job of the media left but `job`, which is storing its answer).
    /// At a merge, the answers so far count as complete: the first merge settles the language.
    func settleLanguage(
        mediaID: Int64, besides job: Int64, atMerge: Bool = false, vote: LanguageVote = LanguageVote(), on connection: PostgresConnection
    ) async throws {
        var seconds: [String: Double] = [:]
        var complete = false
        for row in try await connection.query(
            """
            SELECT k.language, sum(coalesce(k.speech_seconds, k.end_seconds - k.start_seconds))::float8 AS seconds,
                   NOT EXISTS (SELECT 1 FROM jobs WHERE media_id = \(mediaID) AND id <> \(job) AND state IN (\(literals: [JobState.queued, .running]))
                                 AND kind IN (\(literals: [JobKind.media, .chapter, .chunk]))) AS complete
            FROM chunks k
            WHERE k.media_id = \(mediaID) AND k.state = \(literal: ChunkState.succeeded) AND k.language IS NOT NULL
            GROUP BY k.language
            """
        ) {
            seconds[try row.decode("language")] = try row.decode("seconds")
            let allAnswered: Bool = try row.decode("complete")
            complete = atMerge || allAnswered
        }
        guard let settled = vote.settled(seconds, complete: complete) else { return }
        try await connection.query(
            "UPDATE media SET detected_language = \(settled), updated_at = now() WHERE id = \(mediaID) AND language IS NULL AND NOT multilingual AND NOT translate AND detected_language IS NULL")
    }

    /// Settles the language of a media whose language was not given, from its answers so far,
    /// and returns it; nil for a media whose language was given, that speaks several or is
    /// translated, and while its answers say no language (or two, exactly as much).
    public func settleLanguageForMerge(mediaID: Int64) async throws -> String? {
        try await client.withTransaction { connection in
            guard let row = try await connection.query(
                "SELECT detected_language FROM media WHERE id = \(mediaID) AND language IS NULL AND NOT multilingual AND NOT translate FOR UPDATE"
            ).first else { return nil }
            if let settled: String = try row.decode("detected_language") { return settled }
            try await settleLanguage(mediaID: mediaID, besides: 0, atMerge: true, on: connection)
            return try await connection.query("SELECT detected_language FROM media WHERE id = \(mediaID)").first?.decode("detected_language")
        }
    }

    /// The chapter's answered chunks whose answer is in another language than `language`, in order.
    public func chunksInAnotherLanguage(chapterID: Int64, than language: String) async throws -> [Int64] {
        try await client.query(
            """
            SELECT id FROM chunks
            WHERE chapter_id = \(chapterID) AND state = \(literal: ChunkState.succeeded) AND language IS NOT NULL AND language <> \(language)
            ORDER BY start_seconds
            """
        ).map { try $0.decode("id") }
    }

    /// Whether `lease` still holds its job: checked before an ask that costs money, so that a
    /// job another worker took back pays for nothing more.
    public func holds(_ lease: JobLease) async throws -> Bool {
        try await client.withConnection { try await JobStore.holds(lease, on: $0) }
    }

    /// Puts `answer` in place of the chunk's answer: its text, segments, words, what the gates
    /// held back, its language and what was paid for both answers (`answer.usageSeconds` and
    /// `answer.costUSD` are the two asks' sums; `paidAgain` is the second's seconds and
    /// `costAgain` its cost). The voices measured from the chunk's audio stay.
    ///
    /// Fenced by `lease`: when the merge lost its job meanwhile, the chunk keeps its answer
    /// (the job's next run decides what to do with it) and this throws `leaseLost`. What the
    /// ask cost is counted in the tenant's use either way: the backend was paid.
    public func replaceAnswer(
        _ lease: JobLease, chunkID: Int64, chapterID: Int64, with answer: StoredTranscription, paidAgain: Double, costAgain: Double?
    ) async throws {
        let held = try await client.withTransaction { connection in
            try await connection.query("SELECT id FROM chapters WHERE id = \(chapterID) FOR UPDATE")
            let held = try await JobStore.holds(lease, locking: true, on: connection)
            if held {
                try await connection.query(
                    """
                    UPDATE chunks
                    SET text = \(answer.text), segments = \(Self.json(answer.segments))::jsonb, words = \(answer.words.isEmpty ? nil : Self.json(answer.words))::jsonb,
                        flagged = \(answer.flagged.isEmpty ? nil : Self.json(answer.flagged))::jsonb, language = \(answer.language),
                        backend = \(answer.backend), model = \(answer.model), usage_seconds = \(answer.usageSeconds), cost_usd = \(answer.costUSD),
                        updated_at = now()
                    WHERE id = \(chunkID) AND state = \(literal: ChunkState.succeeded)
                    """)
            }
            // The chunk counted its first answer in its tenant's use when it finished; the
            // second is paid today, and counts against today's budget.
            try await connection.query(
                """
                INSERT INTO tenant_usage AS u (tenant, day, paid_seconds, cost_usd)
                SELECT m.tenant, (now() AT TIME ZONE 'UTC')::date, \(paidAgain)::float8, coalesce(\(costAgain)::numeric, 0)
                FROM chunks k JOIN media m ON m.id = k.media_id WHERE k.id = \(chunkID)
                ON CONFLICT (tenant, day) DO UPDATE
                SET paid_seconds = u.paid_seconds + EXCLUDED.paid_seconds, cost_usd = u.cost_usd + EXCLUDED.cost_usd
                """)
            return held
        }
        guard held else {
            throw StoreError(.leaseLost, "the lease of \(lease) was lost before the chunk's new answer was stored; the chunk keeps its answer", jobID: lease.jobID)
        }
    }
}
