import Foundation
import StenoCore
import StenoPostgres
@testable import StenoStore
import StenoTestSupport
import Testing

/// A tenant's voice profile is the sum of the voices named into it (migration 0023): a name
/// given again adds a voice, the same speaker named again counts once, a speaker renamed leaves
/// the profile of its old name, and a voice of another encoder (GE2E, before the upgrade) names
/// nobody until the name is given again.
@Suite("voice profiles: the sum of the voices named into them")
struct VoiceProfileTests {
    /// A voice along dimension `axis`, `scale` long: the sum of `scale` unit embeddings of one
    /// direction, as `chapter_voices` keeps a speaker's share.
    static func voice(_ axis: Int, _ scale: Double, dimensions: Int = VoiceEmbedding.dimensions) -> [Double] {
        (0..<dimensions).map { $0 == axis ? scale : 0 }
    }

    /// Speaker `number` of the media, with its share of one chapter (one group, numbered as the
    /// speaker), as a merge leaves it.
    static func insertSpeaker(_ client: PostgresClient, mediaID: Int64, chapterID: Int64, number: Int, voice: [Double], pieces: Int) async throws {
        try await client.query("INSERT INTO speakers (media_id, number) VALUES (\(mediaID), \(number)) ON CONFLICT DO NOTHING")
        try await client.query(
            """
            INSERT INTO chapter_voices (chapter_id, media_id, grp, speaker, embedding, pieces, talk_seconds)
            VALUES (\(chapterID), \(mediaID), \(number), \(number), \(voice)::float8[]::real[], \(pieces), 12.5)
            """)
    }

    struct Profile: Equatable {
        var embedding: [Double]
        var pieces: Int
        var model: String
        var sources: Int
    }

    static func profile(_ client: PostgresClient, _ name: String) async throws -> Profile? {
        try await client.query(
            """
            SELECT p.embedding::float8[] AS embedding, p.pieces, p.model,
                   (SELECT count(*) FROM voice_profile_sources s WHERE s.profile_id = p.id)::int AS sources
            FROM voice_profiles p WHERE p.name = \(name) AND p.for_media IS NULL
            """
        ).first.map { row in
            Profile(embedding: try row.decode("embedding"), pieces: try row.decode("pieces"), model: try row.decode("model"), sources: try row.decode("sources"))
        }
    }

    @Test("a name given to a speaker of another media adds its voice; the same speaker named again counts once; unname keeps it; a rename takes it out")
    func namesAdd() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = AdminStore(client: client)
            let first = try await TestData.insertMedia(client, source: "/media/first.m4b")
            let firstChapter = try await TestData.insertChapter(client, mediaID: first, index: 0)
            let laterChapter = try await TestData.insertChapter(client, mediaID: first, index: 1)
            try await Self.insertSpeaker(client, mediaID: first, chapterID: firstChapter, number: 1, voice: Self.voice(0, 3), pieces: 3)

            _ = try await store.renameSpeaker(mediaID: first, number: 1, name: "Ada")
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: Self.voice(0, 3), pieces: 3, model: "campplus", sources: 1))
            // Named again, and again after another chapter merged: its own share, replaced.
            _ = try await store.renameSpeaker(mediaID: first, number: 1, name: "Ada")
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: Self.voice(0, 3), pieces: 3, model: "campplus", sources: 1))
            try await Self.insertSpeaker(client, mediaID: first, chapterID: laterChapter, number: 1, voice: Self.voice(0, 1), pieces: 1)
            _ = try await store.renameSpeaker(mediaID: first, number: 1, name: "Ada")
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: Self.voice(0, 4), pieces: 4, model: "campplus", sources: 1))

            // Another media's speaker given the same name: the profile is the sum of both.
            let second = try await TestData.insertMedia(client, source: "/media/second.m4b")
            let secondChapter = try await TestData.insertChapter(client, mediaID: second, index: 0)
            try await Self.insertSpeaker(client, mediaID: second, chapterID: secondChapter, number: 2, voice: Self.voice(1, 2), pieces: 2)
            let named = try await store.renameSpeaker(mediaID: second, number: 2, name: " Ada ")
            #expect(named.name == "Ada")
            let both = zip(Self.voice(0, 4), Self.voice(1, 2)).map { $0 + $1 }
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: both, pieces: 6, model: "campplus", sources: 2))

            // Unname takes the name off this media's speaker; the voice the user gave stays.
            try await store.unnameSpeaker(mediaID: second, number: 2)
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: both, pieces: 6, model: "campplus", sources: 2))

            // Renamed to someone else: not Ada's voice any more.
            let renamed = try await store.renameSpeaker(mediaID: second, number: 2, name: "Bob")
            #expect(renamed.name == "Bob" && renamed.profileID == nil)
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: Self.voice(0, 4), pieces: 4, model: "campplus", sources: 1))
            #expect(try await Self.profile(client, "Bob") == Profile(embedding: Self.voice(1, 2), pieces: 2, model: "campplus", sources: 1))
            // The last voice of a name taken out: the profile stays, with no voice to name anyone by.
            _ = try await store.renameSpeaker(mediaID: first, number: 1, name: "Grace")
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: [], pieces: 0, model: "campplus", sources: 0))
            #expect(try await Self.profile(client, "Grace") == Profile(embedding: Self.voice(0, 4), pieces: 4, model: "campplus", sources: 1))
            await client.shutdown()
        }
    }

    @Test("a profile measured by GE2E names nobody; given again, its name takes the CAM++ voice and keeps the GE2E one for the record")
    func ge2eProfiles() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = AdminStore(client: client)
            // As migration 0023 leaves profiles made before it: 256 GE2E values, or any marked 'ge2e'.
            // Both point where the speaker below does: only the model and the length keep them out.
            let ada: Int64 = try await client.query(
                """
                INSERT INTO voice_profiles (tenant, name, embedding, pieces, model)
                VALUES ('default', 'Ada', \(Self.voice(0, 5, dimensions: 256))::float8[]::real[], 5, 'ge2e') RETURNING id
                """
            ).single().decode("id")
            try await client.query(
                """
                INSERT INTO voice_profile_sources (profile_id, embedding, pieces, model)
                VALUES (\(ada), \(Self.voice(0, 5, dimensions: 256))::float8[]::real[], 5, 'ge2e')
                """)
            try await client.query(
                "INSERT INTO voice_profiles (tenant, name, embedding, pieces, model) VALUES ('default', 'Grace', \(Self.voice(0, 5))::float8[]::real[], 5, 'ge2e')")

            let media = try await TestData.insertMedia(client, source: "/media/later.m4b")
            let chapter = try await TestData.insertChapter(client, mediaID: media, index: 0)
            try await Self.insertSpeaker(client, mediaID: media, chapterID: chapter, number: 1, voice: Self.voice(0, 7), pieces: 7)
            try await Self.insertSpeaker(client, mediaID: media, chapterID: chapter, number: 2, voice: Self.voice(1, 7), pieces: 7)
            try await client.withTransaction { try await WorkStore.recognise(mediaID: media, on: $0) }
            #expect(try await store.speakers(mediaID: media).allSatisfy { $0.name == nil }, "no voice of another encoder names anyone")

            // A CAM++ profile of that voice does: matching itself works.
            let hopper: Int64 = try await client.query(
                "INSERT INTO voice_profiles (tenant, name, embedding, pieces) VALUES ('default', 'Hopper', \(Self.voice(0, 2))::float8[]::real[], 2) RETURNING id"
            ).single().decode("id")
            try await client.withTransaction { try await WorkStore.recognise(mediaID: media, on: $0) }
            let recognised = try await store.speakers(mediaID: media)
            #expect(recognised.map(\.name) == ["Hopper", nil])
            #expect(recognised.first?.profileID == hopper && (recognised.first?.similarity ?? 0) > 0.999, "the match's confidence is shown")

            // Ada's name given to a speaker measured by CAM++: that is Ada's voice now.
            _ = try await store.renameSpeaker(mediaID: media, number: 2, name: "Ada")
            #expect(try await Self.profile(client, "Ada") == Profile(embedding: Self.voice(1, 7), pieces: 7, model: "campplus", sources: 2))
            let kept: [String] = try await client.query(
                "SELECT model FROM voice_profile_sources WHERE profile_id = \(ada) ORDER BY id").map { try $0.decode("model") }
            #expect(kept == ["ge2e", "campplus"])
            await client.shutdown()
        }
    }

    @Test("the matcher compares only voices of one length, and knows CAM++'s from GE2E's by theirs")
    func lengths() {
        let speaker = SpeakerAssignment.Voice(number: 1, sum: Self.voice(0, 3).map(Float.init), pieces: 3)
        let ge2e = VoiceProfileMatch.Profile(id: 1, name: "Ada", sum: Self.voice(0, 1, dimensions: 256).map(Float.init))
        let campplus = VoiceProfileMatch.Profile(id: 2, name: "Grace", sum: Self.voice(0, 1).map(Float.init))
        #expect(VoiceProfileMatch().matches(speakers: [speaker], profiles: [ge2e]).isEmpty)
        #expect(VoiceProfileMatch().matches(speakers: [speaker], profiles: [ge2e, campplus]).map(\.name) == ["Grace"])
        #expect(VoiceProfileMatch.model(ofLength: VoiceEmbedding.dimensions) == VoiceProfileMatch.model)
        #expect(VoiceProfileMatch.model(ofLength: 256) == "ge2e")
    }
}
