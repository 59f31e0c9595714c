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

    /// Names speaker `number` of the media, and keeps the voice as the tenant's profile of that
    /// name, so that the tenant's later media recognise it. A name already a profile of the
    /// tenant adds this voice to it. Returns the speaker as it now is.
    public func renameSpeaker(mediaID: Int64, number: Int, name: String) async throws -> SpeakerRecord {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AdminError(.invalidInput, "a speaker's name must be 1 to 200 characters without control characters", hint: "give a name such as \"Ada Lovelace\"")
        }
        try await client.withTransaction { connection in
            guard try await connection.query("SELECT tenant FROM media WHERE id = \(mediaID) FOR UPDATE").first != nil else {
                throw Self.noSuchMedia(mediaID)
            }
            let updated = try await connection.query(
                """
                UPDATE speakers SET name = \(trimmed), profile_id = NULL, similarity = NULL
                WHERE media_id = \(mediaID) AND number = \(number) RETURNING number
                """)
            guard !updated.isEmpty else {
                throw AdminError(.notFound, "media \(mediaID) has no speaker \(number)", hint: "`steno speakers \(mediaID)` lists its speakers")
            }
            // The voice: the sum of the speaker's embeddings over the media's chapters.
            let sums = try await connection.query(
                "SELECT embedding::float8[] AS embedding, pieces FROM chapter_voices WHERE media_id = \(mediaID) AND speaker = \(number)")
            let sum = SpeakerClustering.sum(try sums.map { try $0.decode("embedding", as: [Double].self).map(Float.init) })
            let pieces = try sums.reduce(0) { $0 + (try $1.decode("pieces", as: Int.self)) }
            guard !sum.isEmpty else { return }
            try await connection.query(
                """
                INSERT INTO voice_profiles (tenant, name, embedding, pieces, named_in)
                SELECT tenant, \(trimmed), \(sum.map(Double.init))::float8[]::real[], \(pieces), id FROM media WHERE id = \(mediaID)
                ON CONFLICT (tenant, name) WHERE for_media IS NULL DO UPDATE
                    SET embedding = EXCLUDED.embedding, pieces = EXCLUDED.pieces, named_in = EXCLUDED.named_in, updated_at = now()
                """)
        }
        guard let speaker = try await speakers(mediaID: mediaID).first(where: { $0.number == number }) else {
            throw AdminError(.notFound, "media \(mediaID) has no speaker \(number)", hint: "`steno speakers \(mediaID)` lists its speakers")
        }
        return speaker
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
    public func addKnownSpeakers(mediaID: Int64, _ voices: [(name: String, embedding: [Float])]) async throws {
        for voice in voices {
            try await client.query(
                """
                INSERT INTO voice_profiles (tenant, name, embedding, pieces, for_media)
                SELECT tenant, \(voice.name), \(voice.embedding.map(Double.init))::float8[]::real[], 1, id FROM media WHERE id = \(mediaID)
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
