import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Migration 0019 on a database the previous release (migration 0018) wrote, with data.
@Suite("migration 0019: fair share on a database with history")
struct FairShareMigrationTests {
    static func exports(_ store: AdminStore, _ media: Int64) async throws -> [String] {
        let source = try await store.transcriptSource(mediaID: media, chapter: nil)
        var texts: [String] = []
        for format in TranscriptFormat.allCases {
            var text = ""
            try await store.exportTranscript(source, format: format, batchSize: 3) { text += $0 }
            texts.append(text)
        }
        return texts
    }

    /// The book's exports in every format, written to a database migrated to the newest.
    static func referenceExports() async throws -> [String] {
        try await TestDatabase.with { database in
            let client = database.client()
            let inserted = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client)
            let texts = try await exports(AdminStore(client: client), inserted.mediaID)
            await client.shutdown()
            return texts
        }
    }

    @Test("transcripts export byte for byte as before; tenants, jobs and the use by day carry the history")
    func migratesHistory() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let all = try Migration.load(from: try Migration.locateDirectory())
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            _ = try await MigrationRunner(migrations: all.filter { $0.version <= 18 }).migrate(on: connection)

            let client = database.client()
            let inserted = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client)
            let media = inserted.mediaID
            try await client.query("UPDATE media SET tenant = 'acme' WHERE id = \(media)")
            let chapter = inserted.chapterIDs[0]
            // Chunks paid yesterday and today (UTC), one failed with a cost, one split.
            try await client.query(
                """
                INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds, state, usage_seconds, cost_usd, finished_at)
                VALUES (\(media), \(chapter), 0, 0, 20, 'succeeded', 20, 0.002, now() - interval '1 day'),
                       (\(media), \(chapter), 1, 20, 40, 'succeeded', NULL, 0.002, now()),
                       (\(media), \(chapter), 2, 40, 60, 'failed', 20, 0.001, now()),
                       (\(media), \(chapter), 3, 60, 80, 'queued', NULL, NULL, NULL)
                """)
            // Queued jobs of the tenant, in the order the previous release would claim them.
            let queued: [Int64] = try await client.query(
                """
                INSERT INTO jobs (kind, media_id, run_at)
                SELECT 'chunk', \(media), now() - make_interval(secs => s) FROM unnest(ARRAY[30, 10, 20]) AS s ORDER BY s DESC
                RETURNING id
                """
            ).map { try $0.decode("id") }
            let store = AdminStore(client: client)
            // Today's code cannot read the old schema; the same book written to a database
            // migrated to the newest is what its exports must be.
            let before = try await Self.referenceExports()

            let applied = try await MigrationRunner(migrations: all).migrate(on: connection)
            #expect(applied.map(\.version).contains(19))
            #expect(try await Self.exports(store, media) == before, "every format exports byte for byte as before")

            let tenants = try await store.tenants()
            #expect(tenants.map(\.name) == ["acme", "default"])
            let jobTenants: [String] = try await client.query("SELECT DISTINCT tenant FROM jobs WHERE media_id = \(media)").map { try $0.decode("tenant") }
            #expect(jobTenants == ["acme"])
            let days = try await store.tenantUsage(tenant: "acme", since: Date().addingTimeInterval(-3 * 86_400))
            #expect(days.count == 2, "yesterday and today: \(days)")
            let paid = days.reduce(0) { $0 + $1.usage.paidSeconds }
            let cost = days.reduce(0) { $0 + $1.usage.costUSD }
            #expect(abs(paid - 60) < 1e-9, "20 s paid yesterday, 20 s (no usage: its length) and 20 s failed with a cost today")
            #expect(abs(cost - 0.005) < 1e-9)
            #expect(days.reduce(0) { $0 + $1.usage.audioSeconds } == 40, "audio transcribed: the two chunks that succeeded")

            // The queue keeps its order: oldest run_at first, as before.
            let claimed = try await JobStore(client: client).claim(limit: 3, worker: "w", lease: .seconds(30))
            #expect(claimed.map(\.id) == queued)
            await client.shutdown()
            await connection.close()
        }
    }
}
