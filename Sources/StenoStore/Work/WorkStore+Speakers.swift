import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// What the chapter's merge needs to tell its speakers apart.
    public struct ChapterVoices: Sendable {
        /// The voice pieces the chapter's chunks measured, each kept by the chunk that owns its
        /// middle (chunks overlap: the owner is the one whose half of the overlap it is in).
        public var pieces: [VoicePiece]
        public var count: SpeakerCount
    }

    /// The chapter's voice pieces and its media's speaker settings; nil when the media has
    /// speaker detection off.
    public func chapterVoices(_ chapterID: Int64) async throws -> ChapterVoices? {
        guard let media = try await client.query(
            """
            SELECT m.speaker_detection, m.speakers_min, m.speakers_max
            FROM chapters c JOIN media m ON m.id = c.media_id WHERE c.id = \(chapterID)
            """
        ).first, try media.decode("speaker_detection", as: Bool.self) else { return nil }
        let rows = try await client.query(
            """
            SELECT start_seconds, end_seconds, encode(voices, 'base64') AS voices
            FROM chunks WHERE chapter_id = \(chapterID) AND state = \(literal: ChunkState.succeeded)
            ORDER BY start_seconds, index
            """)
        let chunks = try rows.map { row in
            (start: try row.decode("start_seconds", as: Double.self), end: try row.decode("end_seconds", as: Double.self),
             voices: try row.decode("voices", as: String?.self))
        }
        var measured: [(range: Range<Double>, pieces: [VoicePiece])] = []
        for chunk in chunks {
            guard let text = chunk.voices else {
                // Measured by no worker (one with STENO_SPEAKERS=off): its words take the nearest speaker.
                measured.append((chunk.start..<chunk.end, []))
                continue
            }
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), let decoded = VoicePiece.decode([UInt8](data)) else {
                throw StoreError(.malformedRow, "a chunk's stored voice pieces have an unexpected shape; is every process running the same Steno version?")
            }
            switch decoded {
            case .pieces(let pieces): measured.append((chunk.start..<chunk.end, pieces))
            // Measured before the upgrade by the earlier encoder, whose voices this one cannot
            // compare: as a chunk measured by no worker (docs/speakers.md, "Upgrading").
            case .otherEncoder: measured.append((chunk.start..<chunk.end, []))
            }
        }
        let pieces = VoicePiece.owned(byChunks: measured)
        return ChapterVoices(
            pieces: pieces,
            count: SpeakerCount(minimum: try media.decode("speakers_min"), maximum: try media.decode("speakers_max")))
    }

    /// Numbers the chapter's speaker groups against the media's other chapters and records
    /// them, on the merge's connection under the media's lock. Returns the chapter's turns.
    /// A merge run again replaces its chapter's share and leaves other chapters' numbers be.
    func storeSpeakers(_ plan: ChapterSpeakerPlan, chapter: ChapterRecord, on connection: PostgresConnection) async throws -> [SpeakerTurn] {
        let rows = try await connection.query(
            """
            SELECT speaker, embedding::float8[] AS embedding, pieces FROM chapter_voices
            WHERE media_id = \(chapter.mediaID) AND chapter_id <> \(chapter.id)
            ORDER BY speaker
            """)
        let known = SpeakerAssignment.Voice.combined(try rows.map(Self.voiceShare))
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
                INSERT INTO chapter_voices (chapter_id, media_id, speaker, embedding, pieces, talk_seconds)
                VALUES (\(chapter.id), \(chapter.mediaID), \(voice.number), \(voice.sum.map(Double.init))::float8[]::real[], \(voice.pieces), \(voice.seconds))
                """)
        }
        try await connection.query(
            "UPDATE chapters SET speaker_turns = \(try Self.json(resolved.turns))::jsonb WHERE id = \(chapter.id)")
        try await recognise(mediaID: chapter.mediaID, on: connection)
        return resolved.turns
    }

    /// One chapter's share of a speaker, as a `chapter_voices` row holds it.
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
    func recognise(mediaID: Int64, on connection: PostgresConnection) async throws {
        let profiles = try await connection.query(
            """
            SELECT p.id, p.name, p.embedding::float8[] AS embedding FROM voice_profiles p JOIN media m ON m.tenant = p.tenant
            WHERE m.id = \(mediaID)
              AND p.id NOT IN (SELECT profile_id FROM speakers WHERE media_id = \(mediaID) AND profile_id IS NOT NULL)
              AND ((p.for_media IS NULL AND p.named_in IS DISTINCT FROM \(mediaID)) OR p.for_media = \(mediaID))
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
