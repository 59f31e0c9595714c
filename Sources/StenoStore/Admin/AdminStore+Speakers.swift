import Foundation
public import StenoCore
import StenoPostgres

extension AdminStore {
    /// One of a media's speakers as `steno speakers` and the API list them.
    public struct SpeakerRecord: Sendable, Equatable, Codable {
        public var number: Int
        /// The name a user gave or a voice profile matched; nil for "Speaker N".
        public var name: String?
        public var talkSeconds: Double
        /// Set when the name came from a voice profile of the tenant.
        public var profileID: Int64?
        /// That match's cosine similarity (1: the same voice).
        public var similarity: Double?

        public var label: String { name ?? Transcript.Speaker.defaultName(number) }

        enum CodingKeys: String, CodingKey {
            case number, name
            case talkSeconds = "talk_seconds"
            case profileID = "profile_id"
            case similarity
        }
    }

    /// Whether the media's speakers are told apart, and how many it was said to have.
    public func speakerSetting(mediaID: Int64) async throws -> (detection: Bool, count: SpeakerCount) {
        guard let row = try await client.query(
            "SELECT speaker_detection, speakers_min, speakers_max FROM media WHERE id = \(mediaID)"
        ).first else { throw Self.noSuchMedia(mediaID) }
        return (try row.decode("speaker_detection"), SpeakerCount(minimum: try row.decode("speakers_min"), maximum: try row.decode("speakers_max")))
    }

    /// The media's speakers who speak in it, by number.
    public func speakers(mediaID: Int64) async throws -> [SpeakerRecord] {
        try await client.query(
            """
            SELECT s.number, s.name, s.profile_id, s.similarity::float8 AS similarity, sum(v.talk_seconds) AS talk_seconds
            FROM speakers s JOIN chapter_voices v ON v.media_id = s.media_id AND v.speaker = s.number
            WHERE s.media_id = \(mediaID)
            GROUP BY s.number, s.name, s.profile_id, s.similarity
            HAVING sum(v.talk_seconds) > 0
            ORDER BY s.number
            """
        ).map { row in
            SpeakerRecord(
                number: try row.decode("number"), name: try row.decode("name"), talkSeconds: try row.decode("talk_seconds"),
                profileID: try row.decode("profile_id"), similarity: try row.decode("similarity"))
        }
    }

    /// Names speaker `number` of the media, and keeps the voice as a source of the tenant's
    /// profile of that name, so that the tenant's later media recognise it. A name already a
    /// profile of the tenant adds this voice to the voices it was named from; the same speaker
    /// named again replaces its own share. A speaker renamed from one name to another leaves the
    /// profile it had: a voice the user says is not Ada's does not stay in Ada's. Returns the
    /// speaker as it now is.
    public func renameSpeaker(mediaID: Int64, number: Int, name: String) async throws -> SpeakerRecord {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AdminError(.invalidInput, "a speaker's name must be 1 to 200 characters without control characters", hint: "give a name such as \"Ada Lovelace\"")
        }
        try await client.withTransaction { connection in
            guard let media = try await connection.query("SELECT tenant FROM media WHERE id = \(mediaID) FOR UPDATE").first else {
                throw Self.noSuchMedia(mediaID)
            }
            let tenant: String = try media.decode("tenant")
            let updated = try await connection.query(
                """
                UPDATE speakers SET name = \(trimmed), profile_id = NULL, similarity = NULL
                WHERE media_id = \(mediaID) AND number = \(number) RETURNING number
                """)
            guard !updated.isEmpty else {
                throw AdminError(.notFound, "media \(mediaID) has no speaker \(number)", hint: "`steno speakers \(mediaID)` lists its speakers")
            }
            // Out of every other profile of the tenant this speaker was named into.
            let left = try await connection.query(
                """
                DELETE FROM voice_profile_sources s USING voice_profiles p
                WHERE s.profile_id = p.id AND p.tenant = \(tenant) AND p.for_media IS NULL AND p.name <> \(trimmed)
                  AND s.media_id = \(mediaID) AND s.speaker = \(number)
                RETURNING s.profile_id
                """)
            let leftProfiles = try Set(left.map { try $0.decode("profile_id", as: Int64.self) })
            for profile in leftProfiles.sorted() {
                try await Self.sumSources(ofProfile: profile, on: connection)
            }
            guard let voice = try await Self.voice(mediaID: mediaID, number: number, on: connection) else { return }
            let profile: Int64 = try await connection.query(
                """
                INSERT INTO voice_profiles (tenant, name, embedding, pieces, named_in, model)
                VALUES (\(tenant), \(trimmed), \(voice.sum.map(Double.init))::float8[]::real[], \(voice.pieces), \(mediaID), \(voice.model))
                ON CONFLICT (tenant, name) WHERE for_media IS NULL DO UPDATE SET named_in = EXCLUDED.named_in, updated_at = now()
                RETURNING id
                """
            ).single().decode("id")
            try await connection.query(
                """
                INSERT INTO voice_profile_sources (profile_id, media_id, speaker, embedding, pieces, model)
                VALUES (\(profile), \(mediaID), \(number), \(voice.sum.map(Double.init))::float8[]::real[], \(voice.pieces), \(voice.model))
                ON CONFLICT (profile_id, media_id, speaker) DO UPDATE
                    SET embedding = EXCLUDED.embedding, pieces = EXCLUDED.pieces, model = EXCLUDED.model, named_at = now()
                """)
            try await Self.sumSources(ofProfile: profile, on: connection)
        }
        guard let speaker = try await speakers(mediaID: mediaID).first(where: { $0.number == number }) else {
            throw AdminError(.notFound, "media \(mediaID) has no speaker \(number)", hint: "`steno speakers \(mediaID)` lists its speakers")
        }
        return speaker
    }

    /// The speaker's voice: the sum of its embeddings over the media's chapters, and the encoder
    /// that measured it. A media merged partly before the upgrade from GE2E holds chapters of
    /// both; the CAM++ ones are the voice then. Nil for a speaker with no measured voice.
    static func voice(mediaID: Int64, number: Int, on connection: PostgresConnection) async throws -> (sum: [Float], pieces: Int, model: String)? {
        let shares = try await connection.query(
            "SELECT embedding::float8[] AS embedding, pieces FROM chapter_voices WHERE media_id = \(mediaID) AND speaker = \(number) ORDER BY chapter_id"
        ).map { (sum: try $0.decode("embedding", as: [Double].self).map(Float.init), pieces: try $0.decode("pieces", as: Int.self)) }
        let measured = shares.filter { !$0.sum.isEmpty }
        let current = measured.filter { $0.sum.count == VoiceEmbedding.dimensions }
        let kept = current.isEmpty ? measured.filter { $0.sum.count == measured.first?.sum.count } : current
        guard let first = kept.first else { return nil }
        let pieces = kept.reduce(0) { $0 + $1.pieces }
        return (VoiceEmbedding.sum(kept.map { $0.sum }), pieces, VoiceProfileMatch.model(ofLength: first.sum.count))
    }

    /// Writes a profile's voice as the sum of its sources: those of the encoder the worker
    /// matches with when it has any (a GE2E voice from before the upgrade is then kept but not
    /// summed), else those of the earlier encoder, which match nothing. A profile left with no
    /// source keeps its name and an empty voice: it names nobody until it is named again.
    static func sumSources(ofProfile id: Int64, on connection: PostgresConnection) async throws {
        // Locked before its sources are read: a rename of another media into the same name
        // waits, and then reads this one's sources as committed.
        try await connection.query("SELECT id FROM voice_profiles WHERE id = \(id) FOR UPDATE")
        let sources = try await connection.query(
            "SELECT embedding::float8[] AS embedding, pieces, model FROM voice_profile_sources WHERE profile_id = \(id) ORDER BY id"
        ).map { (sum: try $0.decode("embedding", as: [Double].self).map(Float.init), pieces: try $0.decode("pieces", as: Int.self), model: try $0.decode("model", as: String.self)) }
        let current = sources.contains(where: { $0.model == VoiceProfileMatch.model })
        let model = current ? VoiceProfileMatch.model : (sources.first?.model ?? VoiceProfileMatch.model)
        let length = sources.first(where: { $0.model == model })?.sum.count
        let summed = sources.filter { $0.model == model && $0.sum.count == length }
        let embedding: [Double] = VoiceEmbedding.sum(summed.map { $0.sum }).map(Double.init)
        let pieces = summed.reduce(0) { $0 + $1.pieces }
        try await connection.query(
            """
            UPDATE voice_profiles SET embedding = \(embedding)::float8[]::real[], pieces = \(pieces), model = \(model), updated_at = now()
            WHERE id = \(id)
            """)
    }

    /// Undoes a name: the speaker is "Speaker N" again. A name a profile gave is not given by
    /// that profile again in this media.
    public func unnameSpeaker(mediaID: Int64, number: Int) async throws {
        let updated = try await client.query(
            "UPDATE speakers SET name = NULL, profile_id = NULL, similarity = NULL, unmatched = true WHERE media_id = \(mediaID) AND number = \(number) RETURNING number")
        guard !updated.isEmpty else {
            throw AdminError(.notFound, "media \(mediaID) has no speaker \(number)", hint: "`steno speakers \(mediaID)` lists its speakers")
        }
    }

    /// Voices a transcription request named (OpenAI's `known_speaker_names[]` and
    /// `known_speaker_references[]`): profiles of this media alone, which name its speakers as
    /// its chapters are merged, and go when it is deleted.
    static func addKnownSpeakers(mediaID: Int64, _ voices: [(name: String, embedding: [Float])], on connection: PostgresConnection) async throws {
        for voice in voices {
            try await connection.query(
                """
                INSERT INTO voice_profiles (tenant, name, embedding, pieces, for_media, model)
                SELECT tenant, \(voice.name), \(voice.embedding.map(Double.init))::float8[]::real[], 1, id,
                       \(VoiceProfileMatch.model(ofLength: voice.embedding.count))
                FROM media WHERE id = \(mediaID)
                """)
        }
    }

    /// The chapters' speaker turns, in time order (what `steno speakers --rttm` prints).
    public func speakerTurns(mediaID: Int64) async throws -> [SpeakerTurn] {
        let rows = try await client.query(
            "SELECT speaker_turns::text AS turns FROM chapters WHERE media_id = \(mediaID) AND speaker_turns IS NOT NULL ORDER BY index")
        var turns: [SpeakerTurn] = []
        for row in rows {
            guard let text = try row.decode("turns", as: String?.self) else { continue }
            turns += (try? JSONDecoder().decode([SpeakerTurn].self, from: Data(text.utf8))) ?? []
        }
        return turns
    }
}
