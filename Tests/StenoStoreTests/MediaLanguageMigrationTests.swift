import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Migration 0020 on a database the previous release (migration 0019) wrote, with data.
@Suite("migration 0020: one language per media on a database with history")
struct MediaLanguageMigrationTests {
    @Test("transcripts export byte for byte as before; given languages and their search stay, nothing is detected or multilingual")
    func migratesHistory() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let all = try Migration.load(from: try Migration.locateDirectory())
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            _ = try await MigrationRunner(migrations: all.filter { $0.version <= 19 }).migrate(on: connection)

            let client = database.client()
            // The reference is the first media of its database: so is the one compared with it.
            let unknown = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client).mediaID
            let german = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client).mediaID
            try await client.query("UPDATE media SET language = 'de' WHERE id = \(german)")
            try await client.query("INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, state) SELECT \(german), id, 0, 0, 20, 'succeeded' FROM chapters WHERE media_id = \(german) LIMIT 1")
            func searches() async throws -> [String] {
                try await client.query("SELECT coalesce(search::text, '-') AS s FROM segments ORDER BY id").map { try $0.decode("s") }
            }
            let searchedBefore = try await searches()
            let reference = try await FairShareMigrationTests.referenceExports()

            let applied = try await MigrationRunner(migrations: all).migrate(on: connection)
            #expect(applied.map(\.version).prefix(1) == [20])
            let store = AdminStore(client: client)
            #expect(try await FairShareMigrationTests.exports(store, unknown) == reference, "every format exports byte for byte as before")
            #expect(try await searches() == searchedBefore, "every segment is searched as before")
            let modes = try await client.query(
                "SELECT count(*) FILTER (WHERE detected_language IS NOT NULL OR multilingual)::integer AS changed FROM media").single()
            #expect(try modes.decode("changed", as: Int.self) == 0)
            let chunkLanguages = try await client.query("SELECT count(*)::integer AS n FROM chunks WHERE language IS NOT NULL").single()
            #expect(try chunkLanguages.decode("n", as: Int.self) == 0)
            #expect(try await store.progress(of: german).languageText == "de")
            #expect(try await store.progress(of: unknown).languageText == "not yet known (detected from the first answers)")

            // Settling a language the media did not have searches its words in it from then on.
            try await client.query("UPDATE media SET detected_language = 'en' WHERE id = \(unknown)")
            let stemmed = try await client.query(
                "SELECT count(*)::integer AS n FROM segments WHERE media_id = \(unknown) AND search @@ to_tsquery('english', 'sentences')").single()
            #expect(try stemmed.decode("n", as: Int.self) > 0)
            // A media cannot both be given one language and speak several.
            await #expect(throws: (any Error).self) {
                try await client.query("UPDATE media SET multilingual = true WHERE id = \(german)")
            }
            await client.shutdown()
            await connection.close()
        }
    }
}
