import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Migration 0021 on a database migration 0020 wrote, with data.
@Suite("migration 0021: exports name the language from then on, the media already there export as before")
struct CaptionLanguageMigrationTests {
    @Test("every media already there exports byte for byte as before, a given or detected language included; a media enqueued after names it")
    func migratesHistory() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let all = try Migration.load(from: try Migration.locateDirectory())
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            _ = try await MigrationRunner(migrations: all.filter { $0.version <= 20 }).migrate(on: connection)

            let client = database.client()
            // The reference is the first media of its database: so is the one compared with it whole.
            let unknown = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client).mediaID
            let given = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client).mediaID
            let detected = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client).mediaID
            try await client.query("UPDATE media SET language = 'de' WHERE id = \(given)")
            try await client.query("UPDATE media SET detected_language = 'fr' WHERE id = \(detected)")
            // What the release before wrote: the language only in the JSON export (as `language`).
            let reference = Dictionary(uniqueKeysWithValues: zip(TranscriptFormat.allCases, try await FairShareMigrationTests.referenceExports()))

            let applied = try await MigrationRunner(migrations: all).migrate(on: connection)
            #expect(applied.map(\.version).first == 21)
            let store = AdminStore(client: client)
            let unknownExports = try await FairShareMigrationTests.exports(store, unknown)
            #expect(unknownExports == TranscriptFormat.allCases.map { reference[$0] }, "every format exports byte for byte as before")
            for (media, language) in [(given, "de"), (detected, "fr")] {
                let exports = Dictionary(uniqueKeysWithValues: zip(TranscriptFormat.allCases, try await FairShareMigrationTests.exports(store, media)))
                for format in [TranscriptFormat.txt, .srt, .vtt, .podcast] {
                    #expect(exports[format] == reference[format], "media \(media): \(format) byte for byte as before")
                }
                let json = try JSONSerialization.jsonObject(with: Data((exports[.json] ?? "").utf8)) as? [String: Any]
                #expect(json?["language"] as? String == language)
                let referenceJSON = try JSONSerialization.jsonObject(with: Data((reference[.json] ?? "").utf8)) as? [String: Any]
                let rest = { (document: [String: Any]?) in
                    (document ?? [:]).filter { $0.key != "language" && $0.key != "media_id" } as NSDictionary
                }
                #expect(rest(json) == rest(referenceJSON), "media \(media): the JSON export as before")
            }

            let enqueuedAfter = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client).mediaID
            try await client.query("UPDATE media SET language = 'de' WHERE id = \(enqueuedAfter)")
            let exports = try await FairShareMigrationTests.exports(store, enqueuedAfter)
            let byFormat = Dictionary(uniqueKeysWithValues: zip(TranscriptFormat.allCases, exports))
            #expect(byFormat[.vtt]?.hasPrefix("WEBVTT\nLanguage: de\n\n") == true, "\(byFormat[.vtt]?.prefix(40) ?? "")")
            #expect(byFormat[.podcast]?.contains("\n  \"language\" : \"de\",\n") == true)
            #expect(byFormat[.txt] == reference[.txt] && byFormat[.srt] == reference[.srt], "txt and srt have no place for a language")
            await client.shutdown()
            await connection.close()
        }
    }
}
