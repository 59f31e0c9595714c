import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// What migration 0010 and the store's statements promise about the queue's cost: heartbeats
/// are HOT, an attempt is written once, workers are woken only when a job becomes claimable,
/// and the hot statements keep one generic plan.
@Suite("Queue cost", .timeLimit(.minutes(2)))
struct QueueCostTests {
    @Test("heartbeats update the job in place (HOT), touching no index")
    func heartbeatsAreHOT() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let store = JobStore(client: client)
            _ = try await store.enqueue(NewJob(kind: .chunk))
            let lease = try #require(try await store.claim(limit: 1, worker: "w", lease: .seconds(60)).first?.lease)
            for _ in 0..<5 {
                #expect(try await store.heartbeat([lease], extendBy: .seconds(60))[lease] == .held(cancelRequested: false))
            }
            // The backend's counters reach the statistics views when it is next idle.
            try await client.query("SELECT pg_stat_force_next_flush()", [])
            var hot = 0
            try await poll(until: {
                hot = try await client.query("SELECT n_tup_hot_upd::integer AS hot FROM pg_stat_user_tables WHERE relname = 'jobs'", [])
                    .single().decode("hot")
                return hot >= 5
            }, within: .seconds(10), "5 HOT updates in the statistics")
            #expect(hot >= 5, "\(hot) of the 5 heartbeats were HOT updates")
            await client.shutdown()
        }
    }

    @Test("an attempt is written to job_attempts once, when it ends, and never updated")
    func attemptWrittenOnce() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let first = try #require(try await store.claim(limit: 1, worker: "w1", lease: .seconds(60)).first?.lease)
            #expect(try await store.attempts(ofJob: id).isEmpty)
            #expect(try await store.retryLater(first, after: .zero, .init(.transient, "503", httpStatus: 503)) != .leaseLost)
            let second = try #require(try await store.claim(limit: 1, worker: "w2", lease: .seconds(60)).first?.lease)
            #expect(try await store.attempts(ofJob: id).count == 1)
            #expect(try await store.complete(second))
            let attempts = try await store.attempts(ofJob: id)
            #expect(attempts.map(\.outcome) == [.retry, .succeeded])
            #expect(attempts.map(\.worker) == ["w1", "w2"])
            #expect(attempts.first?.httpStatus == 503)
            let touched: Int = try await client.query("SELECT count(*)::integer AS n FROM job_attempts WHERE xmax <> 0", []).single().decode("n")
            #expect(touched == 0, "no attempt row was updated or locked after its insert")
            await client.shutdown()
        }
    }

    @Test("deleting a media deletes its jobs' attempts too")
    func attemptsGoWithTheirJobs() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let mediaID: Int64 = try await client.query("INSERT INTO media (source) VALUES ('/media/a.mp3') RETURNING id", []).single().decode("id")
            let kept = try await store.enqueue(NewJob(kind: .chunk))
            _ = try await store.enqueue(NewJob(kind: .media, mediaID: mediaID))
            for lease in try await store.claim(limit: 2, worker: "w", lease: .seconds(60)).compactMap(\.lease) {
                #expect(try await store.complete(lease))
            }
            try await client.query("DELETE FROM media WHERE id = $1", [mediaID])
            let left = try await client.query("SELECT job_id FROM job_attempts", []).map { try $0.decode("job_id", as: Int64.self) }
            #expect(left == [kept])
            await client.shutdown()
        }
    }

    @Test("workers are woken when a job becomes claimable, not by claims, heartbeats or finishes")
    func notifiesOnlyWhenClaimable() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let listener = PostgresConnection(configuration: database.configuration)
            try await listener.query("LISTEN \(JobStore.Channel.jobs)", [])
            // PostgreSQL delivers notifications in the order their transactions committed: a
            // marker sent after the statements arrives after anything they sent, so counting up to
            // it counts all of theirs, with no window of time to guess.
            var markers = 0
            func notifications() async throws -> Int {
                markers += 1
                let marker = "marker \(markers)"
                try await client.notify(channel: JobStore.Channel.jobs, payload: marker)
                var count = 0
                while true {
                    for notification in try await listener.waitForNotifications(timeout: .seconds(5)) {
                        if notification.payload == marker { return count }
                        count += 1
                    }
                }
            }

            _ = try await store.enqueue([NewJob(kind: .chunk), NewJob(kind: .chunk)])
            #expect(try await notifications() >= 1, "an enqueue wakes the workers")

            let leases = try await store.claim(limit: 2, worker: "w", lease: .seconds(60)).compactMap(\.lease)
            #expect(leases.count == 2)
            _ = try await store.heartbeat(leases, extendBy: .seconds(60))
            #expect(try await store.complete(leases[0]))
            #expect(try await notifications() == 0, "claims, heartbeats and finishes wake nobody")

            #expect(try await store.release([leases[1]]) == [leases[1]])
            #expect(try await notifications() == 1, "a job handed back is claimable again")
            await listener.close()
            await client.shutdown()
        }
    }

    @Test("the claim and the end of an attempt keep one generic plan, not a plan per call")
    func hotStatementsKeepAGenericPlan() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let store = JobStore(client: client)
            _ = try await store.enqueue((0..<12).map { _ in NewJob(kind: .chunk) })
            for _ in 0..<12 {
                let leases = try await store.claim(limit: 1, worker: "w", lease: .seconds(60)).compactMap(\.lease)
                #expect(try await store.complete(leases) == Set(leases))
            }
            let plans = try await client.query(
                """
                SELECT generic_plans::integer AS generic, custom_plans::integer AS custom, statement
                FROM pg_prepared_statements
                WHERE statement LIKE '%FOR UPDATE SKIP LOCKED%' OR statement LIKE 'WITH ended AS%'
                """, [])
            #expect(plans.count == 2)
            for row in plans {
                let generic: Int = try row.decode("generic")
                let custom: Int = try row.decode("custom")
                let statement = try row.decode("statement", as: String.self).prefix(40)
                #expect(generic >= 6 && custom <= 6, "\(generic) generic and \(custom) custom plans for \(statement)")
            }
            await client.shutdown()
        }
    }

    @Test("a claim commits without waiting for its WAL flush, and only the claim's own transaction does")
    func claimCommitsAsynchronously() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let setting: (PostgresConnection) async throws -> String = {
                try await $0.query("SHOW synchronous_commit", []).single().decode("synchronous_commit")
            }
            let inside = try await client.withTransaction { connection in
                #expect(try await setting(connection) == "on")
                let claimed = try await JobStore.claim(limit: 1, worker: "w", lease: .seconds(60), on: connection)
                #expect(claimed.map(\.id) == [id])
                return try await setting(connection)
            }
            #expect(inside == "off", "the claim's transaction commits asynchronously")
            let after = try await client.withConnection { try await setting($0) }
            #expect(after == "on", "the session, and the end of the attempt after it, wait for their flush")
            let lease = try #require(try await store.job(id)?.lease)
            #expect(try await store.complete(lease))
            #expect(try await client.withConnection { try await setting($0) } == "on")
            await client.shutdown()
        }
    }
}
