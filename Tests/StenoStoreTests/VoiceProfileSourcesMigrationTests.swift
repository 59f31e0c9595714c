import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Migration 0023 on a database migration 0022 wrote, with named speakers and GE2E profiles.
@Suite("migration 0023: a profile is the sum of its sources; GE2E profiles and every name are kept")
struct VoiceProfileSourcesMigrationTests {
    /// A GE2E voice (256 values) along dimension `axis`: the sum of four unit embeddings.
    static func ge2e(_ axis: Int) -> [Double] { (0..<256).map { $0 == axis ? 4 : 0 } }

    /// The export book with two named speakers, as a release of migration 0022 left it: speaker 1
    /// named "Ada" by the user (Ada's profile is its voice), speaker 2 named by the profile
    /// "Grace", which the user named in another media. Only columns migration 0022 has. The book
    /// is the first media of its database. `grouped`: a database of migration 0024 or later,
    /// whose `chapter_voices` rows name their chapter's group (the speaker's number, as 0024
    /// gives rows written before it). Returns the book, the other media and the profiles.
    static func insertNamedBook(_ client: PostgresClient, grouped: Bool) async throws -> (book: Int64, other: Int64, ada: Int64, grace: Int64) {
        let inserted = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client)
        let book = inserted.mediaID
        let other = try await TestData.insertMedia(client, source: "/media/other.m4b")
        let otherChapter = try await TestData.insertChapter(client, mediaID: other, index: 0)
        let ada: Int64 = try await client.query(
            "INSERT INTO voice_profiles (tenant, name, embedding, pieces, named_in) VALUES ('default', 'Ada', \(Self.ge2e(0))::float8[]::real[], 4, \(book)) RETURNING id"
        ).single().decode("id")
        let grace: Int64 = try await client.query(
            "INSERT INTO voice_profiles (tenant, name, embedding, pieces, named_in) VALUES ('default', 'Grace', \(Self.ge2e(1))::float8[]::real[], 4, \(other)) RETURNING id"
        ).single().decode("id")
        try await client.query(
            """
            INSERT INTO speakers (media_id, number, name, profile_id, similarity)
            VALUES (\(book), 1, 'Ada', NULL, NULL), (\(book), 2, 'Grace', \(grace), 0.83), (\(other), 1, 'Grace', NULL, NULL)
            """)
        for (media, chapter, number, axis, talk) in [(book, inserted.chapterIDs[0], 1, 0, 20.0), (book, inserted.chapterIDs[0], 2, 1, 16.0), (other, otherChapter, 1, 1, 30.0)] {
            if grouped {
                try await client.query(
                    """
                    INSERT INTO chapter_voices (chapter_id, media_id, grp, speaker, embedding, pieces, talk_seconds)
                    VALUES (\(chapter), \(media), \(number), \(number), \(Self.ge2e(axis))::float8[]::real[], 4, \(talk))
                    """)
            } else {
                try await client.query(
                    """
                    INSERT INTO chapter_voices (chapter_id, media_id, speaker, embedding, pieces, talk_seconds)
                    VALUES (\(chapter), \(media), \(number), \(Self.ge2e(axis))::float8[]::real[], 4, \(talk))
                    """)
            }
        }
        try await client.query("UPDATE segments SET speaker = CASE WHEN index % 2 = 0 THEN 1 ELSE 2 END WHERE media_id = \(book)")
        return (book, other, ada, grace)
    }

    @Test("names, matches and transcripts are kept byte for byte; each GE2E profile is kept as its own source and names nobody until named again")
    func migratesHistory() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let all = try Migration.load(from: try Migration.locateDirectory())
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            _ = try await MigrationRunner(migrations: all.filter { $0.version <= 22 }).migrate(on: connection)

            let client = database.client()
            let (book, other, ada, grace) = try await Self.insertNamedBook(client, grouped: false)
            // Today's code cannot read the old schema; the same rows written to a database
            // migrated to the newest are what the exports must be.
            let reference = try await TestDatabase.with { fresh in
                let freshClient = fresh.client()
                let media = try await Self.insertNamedBook(freshClient, grouped: true).book
                let texts = try await FairShareMigrationTests.exports(AdminStore(client: freshClient), media)
                await freshClient.shutdown()
                return texts
            }

            let applied = try await MigrationRunner(migrations: all).migrate(on: connection)
            #expect(applied.map(\.version).first == 23)
            let store = AdminStore(client: client)
            let exports = try await FairShareMigrationTests.exports(store, book)
            #expect(exports == reference, "every format exports byte for byte as before")
            #expect(exports.contains { $0.contains("Ada") && $0.contains("Grace") }, "the names are in the exports")

            let speakers = try await store.speakers(mediaID: book)
            #expect(speakers.map(\.name) == ["Ada", "Grace"])
            #expect(speakers.map(\.profileID) == [nil, grace])
            #expect(abs((speakers.last?.similarity ?? 0) - 0.83) < 1e-6, "the match's confidence is kept")

            // Every profile kept, voice and all, marked as GE2E's; its voice recorded as its first source.
            let profiles: [String] = try await client.query(
                "SELECT name || ' ' || model || ' ' || array_length(embedding, 1) || ' ' || pieces AS profile FROM voice_profiles ORDER BY name"
            ).map { try $0.decode("profile") }
            #expect(profiles == ["Ada ge2e 256 4", "Grace ge2e 256 4"])
            let sources: [String] = try await client.query(
                """
                SELECT profile_id || ' ' || media_id || ' ' || speaker || ' ' || model || ' ' || array_length(embedding, 1) || ' ' || pieces AS source
                FROM voice_profile_sources ORDER BY profile_id
                """
            ).map { try $0.decode("source") }
            #expect(sources == ["\(ada) \(book) 1 ge2e 256 4", "\(grace) \(other) 1 ge2e 256 4"])

            // A later media's speaker measured by CAM++, given Grace's name: that is Grace's voice
            // now; the book keeps its names and its transcript.
            let later = try await TestData.insertMedia(client, source: "/media/later.m4b")
            let laterChapter = try await TestData.insertChapter(client, mediaID: later, index: 0)
            try await VoiceProfileTests.insertSpeaker(
                client, mediaID: later, chapterID: laterChapter, number: 1, voice: VoiceProfileTests.voice(3, 2), pieces: 2)
            _ = try await store.renameSpeaker(mediaID: later, number: 1, name: "Grace")
            #expect(try await VoiceProfileTests.profile(client, "Grace") == VoiceProfileTests.Profile(
                embedding: VoiceProfileTests.voice(3, 2), pieces: 2, model: "campplus", sources: 2))
            #expect(try await VoiceProfileTests.profile(client, "Ada") == VoiceProfileTests.Profile(
                embedding: Self.ge2e(0), pieces: 4, model: "ge2e", sources: 1))
            #expect(try await store.speakers(mediaID: book).map(\.name) == ["Ada", "Grace"])
            #expect(try await FairShareMigrationTests.exports(store, book) == reference)
            await client.shutdown()
            await connection.close()
        }
    }
}
