import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// What the chapter's merge needs to tell its speakers apart.
    public struct ChapterVoices: Sendable {
        /// The segmentation windows the chapter's chunks measured (neighbouring chunks overlap,
        /// and the windows of both are kept: the plan averages every window over a moment).
        public var windows: [SegmentedWindow]
        /// The speech detector's regions of the chapter; nil where a chunk was planned without
        /// detection.
        public var speech: [ClosedRange<Double>]?
        /// The count the chapter's plan holds to: the media's, or only its most where the media
        /// has more chapters (the media's final numbering holds the rest).
        public var count: SpeakerCount
        /// The media's count.
        public var mediaCount: SpeakerCount
    }

    /// The chapter's speaker windows and its media's speaker settings; nil when the media has
    /// speaker detection off.
    public func chapterVoices(_ chapterID: Int64) async throws -> ChapterVoices? {
        guard let media = try await client.query(
            """
            SELECT m.speaker_detection, m.speakers_min, m.speakers_max, c.speaker_turns IS NOT NULL AS merged,
                   (SELECT count(*) FROM chapters o WHERE o.media_id = m.id AND o.state <> \(literal: ChapterState.cancelled)) AS chapters
            FROM chapters c JOIN media m ON m.id = c.media_id WHERE c.id = \(chapterID)
            """
        ).first, try media.decode("speaker_detection", as: Bool.self) else { return nil }
        let rows = try await client.query(
            """
            SELECT encode(voices, 'base64') AS voices, speech::text AS speech, speech_seconds, uploaded
            FROM chunks WHERE chapter_id = \(chapterID) AND state = \(literal: ChunkState.succeeded)
            ORDER BY start_seconds, index
            """)
        let mediaCount = SpeakerCount(minimum: try media.decode("speakers_min"), maximum: try media.decode("speakers_max"))
        let chapters = try media.decode("chapters", as: Int.self)
        let count = chapters > 1 ? SpeakerCount(minimum: nil, maximum: mediaCount.maximum) : mediaCount
        // Merged before, and its windows dropped then: chunks asked again since (`steno retry
        // --language`) measured theirs anew, the others are gone. A plan from the new ones alone
        // would relabel the whole chapter from a part of its audio, so the turns the first merge
        // found from all of it stand (`storeMerge`), and the new words take them.
        if try media.decode("merged", as: Bool.self),
            try rows.contains(where: { try $0.decode("uploaded", as: Bool.self) && $0.decode("voices", as: String?.self) == nil })
        {
            return ChapterVoices(windows: [], speech: nil, count: count, mediaCount: mediaCount)
        }
        var windows: [SegmentedWindow] = []
        var speech: [ClosedRange<Double>]? = []
        for row in rows {
            // Measured by no worker (one with STENO_SPEAKERS=off): its words take the nearest speaker.
            guard let text = try row.decode("voices", as: String?.self) else { continue }
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), let decoded = SegmentedWindow.decode([UInt8](data)) else {
                throw StoreError(.malformedRow, "a chunk's stored speaker windows have an unexpected shape; is every process running the same Steno version?")
            }
            switch decoded {
            case .windows(let found): windows += found
            // Measured before the upgrade by the earlier speaker pass, whose voices this one
            // cannot compare: as a chunk measured by no worker (docs/speakers.md, "Upgrading").
            case .otherPass: continue
            }
            // Chunks planned without speech detection (no speech_seconds) hold loudness regions.
            if try row.decode("speech_seconds", as: Double?.self) != nil,
                let regions = try Self.decodeJSON([ClosedRange<Double>].self, try row.decode("speech"))
            {
                speech? += regions
            } else {
                speech = nil
            }
        }
        return ChapterVoices(windows: windows, speech: speech, count: count, mediaCount: mediaCount)
    }

    /// Gives the chapter's groups provisional numbers against the media's other chapters and
    /// records them, on the merge's connection under the media's lock. Returns the chapter's
    /// turns (each with its group and provisional number). A merge run again replaces its
    /// chapter's groups and leaves other chapters' be.
    func storeSpeakers(_ plan: ChapterSpeakerPlan, chapter: ChapterRecord, on connection: PostgresConnection) async throws -> ChapterSpeakerPlan.Resolved {
        let rows = try await connection.query(
            """
            SELECT speaker, embedding::float8[] AS embedding, pieces FROM chapter_voices
            WHERE media_id = \(chapter.mediaID) AND chapter_id <> \(chapter.id)
            ORDER BY speaker, chapter_id, grp
            """)
        // Chapters merged by the earlier encoder (GE2E, 256 values) cannot be compared with this
        // one's voices: their speakers keep their numbers, and this chapter's groups are new.
        let known = SpeakerAssignment.Voice.combined(try rows.map(Self.voiceShare).filter { $0.sum.count == VoiceEmbedding.dimensions })
        // Numbers given by an earlier merge of this chapter (or named) stay taken.
        let taken = try await connection.query("SELECT number FROM speakers WHERE media_id = \(chapter.mediaID)")
            .map { try $0.decode("number", as: Int.self) }
        let resolved = plan.resolve(known: known, reserving: taken)
        try await connection.query("DELETE FROM chapter_voices WHERE chapter_id = \(chapter.id)")
        for voice in resolved.voices {
            try await connection.query(
                "INSERT INTO speakers (media_id, number) VALUES (\(chapter.mediaID), \(voice.number)) ON CONFLICT DO NOTHING")
            try await connection.query(
                """
                INSERT INTO chapter_voices (chapter_id, media_id, grp, speaker, embedding, pieces, talk_seconds, first_seconds)
                VALUES (\(chapter.id), \(chapter.mediaID), \(voice.group), \(voice.number), \(voice.sum.map(Double.init))::float8[]::real[],
                        \(voice.pieces), \(voice.seconds), \(voice.firstHeard))
                """)
        }
        try await connection.query(
            "UPDATE chapters SET speaker_turns = \(try Self.json(resolved.turns))::jsonb WHERE id = \(chapter.id)")
        try await Self.recognise(mediaID: chapter.mediaID, on: connection)
        return resolved
    }

    /// The media's final speakers, once it is done (`MediaSpeakerNumbering`): every chapter's
    /// groups joined by voice and numbered by first appearance, written over the provisional
    /// numbers on the speakers, the chapters' groups and turns, and the segments and their words.
    /// A name follows the voice it was given to: the final speaker that holds most of a named
    /// provisional speaker's talk takes the name. Runs under the media's lock, in the transaction
    /// that finishes the media; run again (a retried chapter), it gives the same numbers.
    static func finalizeSpeakers(_ mediaID: Int64, on connection: PostgresConnection) async throws {
        let media = try await connection.query(
            "SELECT speaker_detection, speakers_min, speakers_max FROM media WHERE id = \(mediaID)").first
        guard let media, try media.decode("speaker_detection", as: Bool.self) else { return }
        let rows = try await connection.query(
            """
            SELECT v.chapter_id, v.grp, v.speaker, v.embedding::float8[] AS embedding, v.pieces, v.talk_seconds,
                   COALESCE(v.first_seconds, c.start_seconds) AS first_seconds
            FROM chapter_voices v JOIN chapters c ON c.id = v.chapter_id
            WHERE v.media_id = \(mediaID) AND c.state = \(literal: ChapterState.succeeded)
            ORDER BY c.index, v.grp
            """)
        guard !rows.isEmpty else { return }
        // A media some of whose chapters the earlier encoder (GE2E) measured, before the upgrade,
        // keeps the numbers its merges gave: their voices cannot be compared with this one's.
        guard try rows.allSatisfy({ try $0.decode("embedding", as: [Double].self).count == VoiceEmbedding.dimensions }) else { return }
        var chapterIDs: [Int64] = []
        var chapters: [[ChapterSpeakerPlan.ChapterVoice]] = []
        for row in rows {
            let chapterID = try row.decode("chapter_id", as: Int64.self)
            if chapterIDs.last != chapterID {
                chapterIDs.append(chapterID)
                chapters.append([])
            }
            chapters[chapters.count - 1].append(ChapterSpeakerPlan.ChapterVoice(
                group: try row.decode("grp"), number: try row.decode("speaker"),
                sum: try row.decode("embedding", as: [Double].self).map(Float.init), pieces: try row.decode("pieces"),
                seconds: try row.decode("talk_seconds"), firstHeard: try row.decode("first_seconds")))
        }
        let count = SpeakerCount(minimum: try media.decode("speakers_min"), maximum: try media.decode("speakers_max"))
        let numbers = MediaSpeakerNumbering().numbers(chapters: chapters, count: count)

        // Names follow their voices: each provisional speaker's talk, by final number.
        var talk: [Int: [Int: Double]] = [:]
        for (chapter, finals) in zip(chapters, numbers) {
            for (voice, final) in zip(chapter, finals) { talk[voice.number, default: [:]][final, default: 0] += voice.seconds }
        }
        let named = try await connection.query(
            """
            SELECT number, name, profile_id, similarity, unmatched FROM speakers WHERE media_id = \(mediaID) ORDER BY number
            """)
        struct Naming {
            var name: String?
            var profileID: Int64?
            var similarity: Float?
            var unmatched: Bool
            var weight: Double
        }
        var naming: [Int: Naming] = [:]
        // Where each provisional speaker's voice went: the final speaker with most of its talk.
        var moved: [Int: Int] = [:]
        for (number, shares) in talk {
            if let (final, _) = shares.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }) { moved[number] = final }
        }
        for row in named {
            let number = try row.decode("number", as: Int.self)
            guard let shares = talk[number], let (final, seconds) = shares.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }) else { continue }
            let candidate = Naming(
                name: try row.decode("name"), profileID: try row.decode("profile_id"), similarity: try row.decode("similarity", as: Double?.self).map(Float.init),
                unmatched: try row.decode("unmatched"), weight: seconds)
            // A name a person gave outweighs one a profile gave, and more talk outweighs less.
            func rank(_ naming: Naming) -> (Int, Double) {
                (naming.name == nil ? 0 : naming.profileID == nil ? 2 : 1, naming.weight)
            }
            if let held = naming[final], rank(held) >= rank(candidate) { continue }
            naming[final] = candidate
        }
        try await connection.query("DELETE FROM speakers WHERE media_id = \(mediaID)")
        for final in Set(numbers.flatMap { $0 }).sorted() {
            let name = naming[final]
            try await connection.query(
                """
                INSERT INTO speakers (media_id, number, name, profile_id, similarity, unmatched)
                VALUES (\(mediaID), \(final), \(name?.name), \(name?.profileID), \(name?.similarity.map(Double.init)), \(name?.unmatched ?? false))
                """)
        }
        // A profile's records of this media's speakers follow their voices too; one that would
        // repeat another record of the same profile and speaker goes.
        let provisional = moved.keys.sorted()
        try await connection.query(
            """
            UPDATE voice_profile_sources s SET speaker = -m.final
            FROM unnest(\(provisional)::int[], \(provisional.map { moved[$0]! })::int[]) AS m(number, final)
            WHERE s.media_id = \(mediaID) AND s.speaker = m.number
            """)
        try await connection.query(
            """
            DELETE FROM voice_profile_sources s
            WHERE s.media_id = \(mediaID) AND s.speaker < 0
              AND EXISTS (SELECT 1 FROM voice_profile_sources o
                          WHERE o.profile_id = s.profile_id AND o.media_id = s.media_id
                            AND (o.speaker = -s.speaker OR (o.speaker = s.speaker AND o.id > s.id)))
            """)
        try await connection.query("UPDATE voice_profile_sources SET speaker = -speaker WHERE media_id = \(mediaID) AND speaker < 0")
        for (index, chapterID) in chapterIDs.enumerated() {
            let groups = chapters[index].map(\.group)
            let finals = numbers[index]
            try await connection.query(
                """
                UPDATE chapter_voices v SET speaker = m.final
                FROM unnest(\(groups)::int[], \(finals)::int[]) AS m(grp, final)
                WHERE v.chapter_id = \(chapterID) AND v.grp = m.grp
                """)
            // Segments written before groups existed carry their speaker number, which was
            // their group then (migration 0024).
            try await connection.query(
                """
                UPDATE segments s SET speaker = m.final,
                    words = CASE WHEN s.words IS NULL THEN NULL ELSE (
                        SELECT jsonb_agg(CASE WHEN w ? 'speaker' THEN jsonb_set(w, '{speaker}', to_jsonb(m.final)) ELSE w END ORDER BY i)
                        FROM jsonb_array_elements(s.words) WITH ORDINALITY AS e(w, i)) END
                FROM unnest(\(groups)::int[], \(finals)::int[]) AS m(grp, final)
                WHERE s.chapter_id = \(chapterID) AND COALESCE(s.speaker_group, s.speaker) = m.grp
                """)
            let byGroup = Dictionary(uniqueKeysWithValues: zip(groups, finals))
            let stored = try await connection.query("SELECT speaker_turns::text AS turns FROM chapters WHERE id = \(chapterID)")
                .first?.decode("turns", as: String?.self)
            if let turns = try Self.decodeJSON([SpeakerTurn].self, stored ?? nil) {
                // Turns stored before groups existed carry their speaker number as their group.
                let grouped = turns.map { turn -> SpeakerTurn in
                    var turn = turn
                    if turn.group == nil { turn.group = turn.speaker }
                    return turn
                }
                try await connection.query(
                    """
                    UPDATE chapters SET speaker_turns = \(try Self.json(MediaSpeakerNumbering.renumbered(grouped, numbers: byGroup)))::jsonb
                    WHERE id = \(chapterID)
                    """)
            }
        }
        try await recognise(mediaID: mediaID, on: connection)
    }

    /// One chapter's group, as a `chapter_voices` row holds it, under its speaker's number.
    static func voiceShare(_ row: PostgresRow) throws -> SpeakerAssignment.Voice {
        SpeakerAssignment.Voice(
            number: try row.decode("speaker"), sum: try row.decode("embedding", as: [Double].self).map(Float.init),
            pieces: try row.decode("pieces"))
    }

    /// The turns an earlier merge of the chapter found, if any.
    func storedTurns(_ chapterID: Int64, on connection: PostgresConnection) async throws -> [SpeakerTurn]? {
        let text = try await connection.query("SELECT speaker_turns::text AS turns FROM chapters WHERE id = \(chapterID)")
            .first?.decode("turns", as: String?.self)
        return try Self.decodeJSON([SpeakerTurn].self, text ?? nil)
    }

    /// Names the media's unnamed speakers after the tenant's voice profiles they match: the
    /// closest profile within `VoiceProfileMatch.threshold`, each profile at most once per media.
    /// Only profiles of this encoder's voices take part (one measured by GE2E before migration
    /// 0023 names nobody until its name is given again), and none named from a speaker of this
    /// media: its own speakers are not matched against what they taught it.
    static func recognise(mediaID: Int64, on connection: PostgresConnection) async throws {
        let profiles = try await connection.query(
            """
            SELECT p.id, p.name, p.embedding::float8[] AS embedding FROM voice_profiles p JOIN media m ON m.tenant = p.tenant
            WHERE m.id = \(mediaID)
              AND p.model = \(VoiceProfileMatch.model) AND array_length(p.embedding, 1) = \(literal: VoiceEmbedding.dimensions)
              AND p.id NOT IN (SELECT profile_id FROM speakers WHERE media_id = \(mediaID) AND profile_id IS NOT NULL)
              AND ((p.for_media IS NULL AND p.named_in IS DISTINCT FROM \(mediaID)
                    AND NOT EXISTS (SELECT 1 FROM voice_profile_sources s WHERE s.profile_id = p.id AND s.media_id = \(mediaID)))
                   OR p.for_media = \(mediaID))
            """
        ).map { VoiceProfileMatch.Profile(id: try $0.decode("id"), name: try $0.decode("name"), sum: try $0.decode("embedding", as: [Double].self).map(Float.init)) }
        guard !profiles.isEmpty else { return }
        let rows = try await connection.query(
            """
            SELECT v.speaker, v.embedding::float8[] AS embedding, v.pieces
            FROM speakers s JOIN chapter_voices v ON v.media_id = s.media_id AND v.speaker = s.number
            WHERE s.media_id = \(mediaID) AND s.name IS NULL AND s.profile_id IS NULL AND NOT s.unmatched
            ORDER BY v.speaker
            """)
        let voices = SpeakerAssignment.Voice.combined(try rows.map(Self.voiceShare))
        for match in VoiceProfileMatch().matches(speakers: voices, profiles: profiles) {
            try await connection.query(
                """
                UPDATE speakers SET name = \(match.name), profile_id = \(match.profileID), similarity = \(Double(match.similarity))
                WHERE media_id = \(mediaID) AND number = \(match.number) AND name IS NULL
                """)
        }
    }
}
