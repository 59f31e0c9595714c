import Foundation
import StenoAPI
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import StenoVoice
import Testing

/// The media's speakers over HTTP: listed with talk time, named, the name kept as the tenant's
/// voice profile, taken away again; another tenant sees none of it.
@Suite("steno-api: speakers")
struct APISpeakersTests {
    /// A media of two speakers as a merge leaves it: speaker rows, each chapter's share of each voice.
    static func insertSpeakers(_ client: PostgresClient, mediaID: Int64, chapterID: Int64) async throws {
        let half = VoiceEmbedding.dimensions / 2
        for (number, direction) in [(1, 0), (2, half)] {
            let embedding = (0..<VoiceEmbedding.dimensions).map { $0 / half == direction / half ? 1.0 : 0.05 }
            try await client.query("INSERT INTO speakers (media_id, number) VALUES (\(mediaID), \(number))")
            try await client.query(
                """
                INSERT INTO chapter_voices (chapter_id, media_id, grp, speaker, embedding, pieces, talk_seconds)
                VALUES (\(chapterID), \(mediaID), \(number), \(number), \(embedding)::float8[]::real[], 10, \(Double(number) * 12.5))
                """)
        }
    }

    @Test("speakers are listed with talk time, named into a profile of the tenant, unnamed, and hidden from other tenants")
    func nameAndList() async throws {
        try await RunningAPI.with { api in
            let media = try await TestMediaBuilder.insert(
                .init("/talks/panel.m4a", title: "Panel", chapters: [.init("One", 0, 60, segments: [.init(0, 2, "Hello.")])]), into: api.client)
            try await api.client.query("UPDATE media SET tenant = 'acme'")
            try await Self.insertSpeakers(api.client, mediaID: media.mediaID, chapterID: media.chapterIDs[0])
            let key = try await api.key(.submit)
            let listed = try await HTTP.request("GET", api.url("/v1/media/\(media.mediaID)/speakers"), key: key)
            #expect(listed.status == 200)
            struct List: Decodable { var speakers: [AdminStore.SpeakerRecord] }
            let speakers = try JSONDecoder().decode(List.self, from: Data(listed.text.utf8)).speakers
            #expect(speakers.map(\.number) == [1, 2])
            #expect(speakers.map(\.talkSeconds) == [12.5, 25])
            #expect(speakers.allSatisfy { $0.name == nil })

            let named = try await HTTP.request(
                "PUT", api.url("/v1/media/\(media.mediaID)/speakers/2"), key: key,
                body: .json(#"{"name": "Ada Lovelace"}"#))
            #expect(named.status == 200, "\(named.text)")
            #expect(named.text.contains("Ada Lovelace"))
            let profile = try await api.client.query(
                "SELECT tenant, name, named_in, model, (SELECT count(*) FROM voice_profile_sources)::int AS sources FROM voice_profiles"
            ).single()
            #expect(try profile.decode("tenant", as: String.self) == "acme")
            #expect(try profile.decode("named_in", as: Int64.self) == media.mediaID)
            #expect(try profile.decode("model", as: String.self) == "campplus")
            #expect(try profile.decode("sources", as: Int.self) == 1, "the voice is the profile's one source")
            // Search filters by who said it, and says who did.
            try await api.client.query("UPDATE segments SET speaker = 2 WHERE media_id = \(media.mediaID)")
            let said = try await AdminStore(client: api.client).search("hello", tenant: "acme", speaker: "ada lovelace").hits
            #expect(said.map(\.speaker) == ["Ada Lovelace"])
            #expect(try await AdminStore(client: api.client).search("hello", tenant: "acme", speaker: "Speaker 1").hits.isEmpty)
            #expect(try await AdminStore(client: api.client).search("hello", tenant: "acme").hits.count == 1)
            // The transcript names the speaker everywhere it appears.
            let transcript = try await AdminStore(client: api.client).transcriptSource(mediaID: media.mediaID)
            #expect(transcript.outline.speakers?.map(\.name) == ["Speaker 1", "Ada Lovelace"])

            let unnamed = try await HTTP.request(
                "PUT", api.url("/v1/media/\(media.mediaID)/speakers/2"), key: key,
                body: .json(#"{"name": null}"#))
            #expect(unnamed.status == 200)
            #expect(try await AdminStore(client: api.client).speakers(mediaID: media.mediaID).allSatisfy { $0.name == nil })

            for (path, method, body) in [("/speakers/7", "PUT", #"{"name": "X"}"#), ("/speakers/1", "PUT", #"{"name": 3}"#), ("/speakers/1", "PUT", #"{"name": ""}"#)] {
                let answer = try await HTTP.request(method, api.url("/v1/media/\(media.mediaID)\(path)"), key: key, body: .json(body))
                #expect(answer.status == 404 || answer.status == 400, "\(path) \(body): \(answer.status)")
                #expect(answer.text.contains("\"hint\"") || answer.text.contains("message"))
            }
            let stranger = try await api.key(.submit, tenant: "other")
            #expect(try await HTTP.request("GET", api.url("/v1/media/\(media.mediaID)/speakers"), key: stranger).status == 404)
            let read = try await api.key(.read)
            #expect(try await HTTP.request(
                "PUT", api.url("/v1/media/\(media.mediaID)/speakers/1"), key: read,
                body: .json(#"{"name": "Eve"}"#)).status == 403)
        }
    }
}

/// OpenAI's known speakers arrive with the recording: the media and their voices are written
/// together or not at all.
@Suite("steno-api: known speakers are stored with their media")
struct APIKnownSpeakersTests {
    @Test("a failure storing a request's known speakers leaves no media and no upload: one transaction, not an enqueue and then a second write")
    func knownSpeakersAndTheirMediaTogether() async throws {
        let encoder = SpeakerEncoder(model: try SpeakerModelFile.model())
        // No fleet runs here: the answer would wait for one, so it gives up at once, after the enqueue.
        try await RunningAPI.with(configure: { $0.speakers = encoder; $0.transcriptionTimeout = .zero }) { api in
            let key = try await api.key(.submit)
            let clip = FixtureBook.file("clip-2s.flac").path
            let reference = "data:audio/flac;base64," + (try Data(contentsOf: URL(fileURLWithPath: clip))).base64EncodedString()
            // Every write of a voice profile fails, as a full disk or a lost connection would at
            // that moment.
            try await api.client.query(
                """
                CREATE FUNCTION steno_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$
                """)
            try await api.client.query(
                "CREATE TRIGGER steno_test_refuse BEFORE INSERT ON voice_profiles FOR EACH ROW EXECUTE FUNCTION steno_test_refuse()")
            let failed = try await HTTP.request(
                "POST", api.url("/v1/audio/transcriptions"), key: key,
                body: .form(
                    [("model", "whisper-1"), ("response_format", "diarized_json"), ("known_speaker_names[]", "Ada"), ("known_speaker_references[]", reference)],
                    files: [("file", clip)]))
            #expect(failed.status >= 500, "\(failed.status): \(failed.text)")
            let media = try await api.client.query("SELECT count(*) AS n FROM media").single().decode("n", as: Int.self)
            #expect(media == 0, "a media was left without the voices it was sent with")
            #expect(api.uploadedFiles.isEmpty, "the upload of a refused request was kept")

            try await api.client.query("DROP TRIGGER steno_test_refuse ON voice_profiles")
            let accepted = try await HTTP.request(
                "POST", api.url("/v1/audio/transcriptions"), key: key,
                body: .form(
                    [("model", "whisper-1"), ("response_format", "diarized_json"), ("known_speaker_names[]", "Ada"), ("known_speaker_references[]", reference)],
                    files: [("file", clip)]))
            #expect(accepted.status != 503 && accepted.status != 400, "\(accepted.status): \(accepted.text)")
            let rows = try await api.client.query(
                "SELECT m.id, p.name FROM media m JOIN voice_profiles p ON p.for_media = m.id").map { try $0.decode("name", as: String.self) }
            #expect(rows == ["Ada"])
        }
    }
}
