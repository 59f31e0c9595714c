import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// What the web view's overview reads: a tenant's backlog and failures, and the fleet.
@Suite("The overview's statements")
struct FleetOverviewTests {
    @Test("backlog, failures by class, remaining audio, and the fleet's backends, workers and spend")
    func overview() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 4)
            let store = AdminStore(client: client)
            let failed = try await TestMediaBuilder.insert(
                .init("/books/bad.mp3", title: "Bad", state: "failed", errorClass: "media", errorMessage: "not a media file"), into: client
            ).mediaID
            let working = try await TestMediaBuilder.insert(
                .init("/books/long.m4b", title: "Long", state: "transcribing", priority: 2, chapters: [
                    .init("One", 0, 600, state: "transcribing", chunks: [
                        .init(0, 300, costUSD: 0.03, backend: "primary", finishedAgo: 120),
                        .init(300, 600, state: "queued", attempts: 2, errorClass: "rate_limited", errorMessage: "429 from the backend"),
                    ]),
                ]), into: client
            ).mediaID
            let elsewhere = try await TestMediaBuilder.insert(.init("/books/theirs.mp3", state: "failed", errorClass: "media"), into: client).mediaID
            try await client.query("UPDATE media SET tenant = 'acme' WHERE id IN (\(failed), \(working))")
            try await client.query("UPDATE media SET tenant = 'other' WHERE id = \(elsewhere)")
            try await client.query("UPDATE jobs SET run_at = now() + interval '1 minute' WHERE media_id = \(working) AND state = 'queued' AND kind = 'chunk'")
            try await TestMediaBuilder.insertWorker(client, id: "w1", pausedBackendsJSON: #"{"primary": "2026-11-25T10:00:00Z"}"#)
            try await client.query("UPDATE workers SET backend = 'primary', request_limit = 6.5, requests_in_flight = 2 WHERE id = 'w1'")
            try await client.query(
                "INSERT INTO backend_outages (backend, reason, probe_at, probe_seconds, failures) VALUES ('primary', 'refused', now() + interval '30 seconds', 30, 3)")

            let overview = try await store.overview(tenant: "acme", includeFleet: true)
            #expect(overview.media(in: .failed) == 1, "another tenant's failure was counted")
            #expect(overview.media(in: .transcribing, priority: .high) == 1)
            #expect(overview.remainingAudioSeconds == 300)
            let groups = Dictionary(uniqueKeysWithValues: overview.failures.map { ($0.errorClass, $0) })
            #expect(groups["media"]?.failedMedia == 1 && groups["media"]?.retryingMedia == 0)
            #expect(groups["media"]?.newestMediaID == failed)
            #expect(groups["rate_limited"]?.retryingMedia == 1 && groups["rate_limited"]?.lastMessage == "429 from the backend")
            #expect(try await store.failedMediaIDs(errorClass: "media", tenant: "acme") == [failed])
            #expect(try await store.retryingMediaIDs(errorClass: "rate_limited", tenant: "acme") == [working])
            #expect(try await store.failedMediaIDs(errorClass: "media", tenant: "other") == [elsewhere])

            // A media with jobs retrying after failures of two classes counts once, under its
            // latest; each group's action reaches the media that group counts, and no other.
            let twice = try await TestMediaBuilder.insert(
                .init("/books/twice.m4b", title: "Twice", state: "transcribing", chapters: [
                    .init("One", 0, 600, state: "transcribing", chunks: [
                        .init(0, 300, state: "queued", attempts: 1, errorClass: "transient", errorMessage: "503 from the backend"),
                        .init(300, 600, state: "queued", attempts: 1, errorClass: "rate_limited", errorMessage: "429 again"),
                    ]),
                ]), into: client
            ).mediaID
            try await client.query("UPDATE media SET tenant = 'acme' WHERE id = \(twice)")
            try await client.query(
                """
                UPDATE jobs SET updated_at = now() - CASE WHEN error_class = 'transient' THEN interval '10 minutes' ELSE interval '1 minute' END
                WHERE media_id = \(twice) AND kind = 'chunk'
                """)
            let regrouped = Dictionary(uniqueKeysWithValues: try await store.overview(tenant: "acme", includeFleet: false).failures.map { ($0.errorClass, $0) })
            #expect(regrouped["rate_limited"]?.retryingMedia == 2)
            #expect(regrouped["transient"] == nil, "a media was counted under a class that is not its latest")
            #expect(try await store.retryingMediaIDs(errorClass: "rate_limited", tenant: "acme") == [working, twice].sorted())
            #expect(try await store.retryingMediaIDs(errorClass: "transient", tenant: "acme") == [], "an action reached a media its group does not count")

            let fleet = try #require(overview.fleet)
            let primary = try #require(fleet.backends.first { $0.name == "primary" })
            #expect(primary.health == .down && primary.outage?.failures == 3)
            #expect(primary.requestLimit == 6.5 && primary.requestsInFlight == 2 && primary.pausedBy == 1)
            #expect(primary.costUSD == 0.03 && primary.paidSeconds == 300)
            #expect(fleet.workers.map(\.id) == ["w1"])
            #expect(fleet.spend.audioSeconds == 300 && fleet.spend.costUSD == 0.03)
            #expect(fleet.estimate.audioSecondsDone == 300)
            #expect(fleet.queue.contains { $0.kind == .chunk && $0.state == .queued && $0.delayed == 1 })
            #expect(try await store.overview(tenant: "acme", includeFleet: false).fleet == nil)
            await client.shutdown()
        }
    }
}
