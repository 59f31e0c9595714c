import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Migration 0022 on a database migration 0021 wrote, with data.
@Suite("migration 0022: an answer's mark names its holder; the marks and transcripts already there are kept")
struct AnswerHolderMigrationTests {
    @Test("every transcript exports byte for byte as before, and a mark made before it holds its chunk until it runs out")
    func migratesHistory() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let all = try Migration.load(from: try Migration.locateDirectory())
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            _ = try await MigrationRunner(migrations: all.filter { $0.version <= 21 }).migrate(on: connection)

            let client = database.client()
            // The reference is the first media of its database: so is the one compared with it whole.
            let media = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client).mediaID
            let reference = try await FairShareMigrationTests.referenceExports()
            // A chunk whose answer a worker of the release before marked as held, for ten minutes.
            let working = try await TestData.insertMedia(client)
            let chapter = try await TestData.insertChapter(client, mediaID: working, index: 0)
            let chunk: Int64 = try await client.query(
                """
                INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, state, answer_held_until)
                VALUES (\(working), \(chapter), 0, 0, 30, 'running', now() + interval '10 minutes') RETURNING id
                """
            ).single().decode("id")

            let applied = try await MigrationRunner(migrations: all).migrate(on: connection)
            #expect(applied.map(\.version).first == 22)
            #expect(try await FairShareMigrationTests.exports(AdminStore(client: client), media) == reference, "every format exports byte for byte as before")
            // It names no holder, so no death can end it: it holds until it runs out, as before.
            let clock = ManualClock(date: Date())
            let store = WorkStore(client: client, time: .given(by: clock))
            #expect(try await store.markRunning(chunkID: chunk, policy: WorkerLivenessRescueTests.atOnce) == .answerHeldElsewhere)
            clock.advance(by: .seconds(601))
            #expect(try await store.markRunning(chunkID: chunk, policy: WorkerLivenessRescueTests.atOnce) == .started)
            await client.shutdown()
            await connection.close()
        }
    }
}
