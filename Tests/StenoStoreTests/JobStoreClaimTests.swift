import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Synchronization
import Testing

@testable import StenoPostgres

@Suite("JobStore: enqueue and claim")
struct JobStoreClaimTests {
    @Test("8 concurrent claimers over 5,000 jobs: every job claimed exactly once")
    func concurrentClaimers() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 9)
            let store = JobStore(client: client)
            let mediaID = try await TestData.insertMedia(client)
            let ids = try await store.enqueue(Array(repeating: NewJob(kind: .chunk, mediaID: mediaID), count: 5000))
            #expect(ids.count == 5000)
            #expect(Set(ids).count == 5000)

            let claims = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var claimed: [Int64] = []
                        while true {
                            let jobs = try await store.claim(limit: 25, worker: "worker-\(worker)", lease: .seconds(60))
                            if jobs.isEmpty { return claimed }
                            claimed += jobs.map(\.id)
                            let finished = try await store.complete(jobs.compactMap(\.lease))
                            #expect(finished.count == jobs.count)
                        }
                    }
                }
                return try await group.reduce(into: [[Int64]]()) { $0.append($1) }
            }
            let all = claims.flatMap { $0 }
            #expect(all.count == 5000, "no job claimed twice")
            #expect(Set(all) == Set(ids), "every job claimed")
            #expect(claims.filter { !$0.isEmpty }.count >= 2, "the work was shared between claimers")

            let summary = try await client.query(
                """
                SELECT (SELECT count(*) FROM jobs WHERE state = 'succeeded' AND attempt = 1) AS succeeded,
                       (SELECT count(*) FROM job_attempts WHERE outcome = 'succeeded') AS attempts,
                       (SELECT count(*) FROM (SELECT job_id FROM job_attempts GROUP BY job_id HAVING count(*) > 1) AS d) AS repeated
                """
            ).single()
            #expect(try summary.decode("succeeded", as: Int.self) == 5000)
            #expect(try summary.decode("attempts", as: Int.self) == 5000)
            #expect(try summary.decode("repeated", as: Int.self) == 0)
            await client.shutdown()
        }
    }

    @Test("claims by priority, then run_at, then id; future jobs wait")
    func order() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let now = Date()
            let lowOld = try await store.enqueue(NewJob(kind: .chunk, priority: .low, runAt: now.addingTimeInterval(-60)))
            let highNew = try await store.enqueue(NewJob(kind: .chunk, priority: .high, runAt: now.addingTimeInterval(-1)))
            let mediumA = try await store.enqueue(NewJob(kind: .chunk, priority: .medium, runAt: now.addingTimeInterval(-30)))
            let mediumB = try await store.enqueue(NewJob(kind: .chunk, priority: .medium, runAt: now.addingTimeInterval(-30)))
            let highOld = try await store.enqueue(NewJob(kind: .chunk, priority: .high, runAt: now.addingTimeInterval(-10)))
            let future = try await store.enqueue(NewJob(kind: .chunk, priority: .high, runAt: now.addingTimeInterval(3600)))

            let firstTwo = try await store.claim(limit: 2, worker: "w", lease: .seconds(30))
            #expect(firstTwo.map(\.id) == [highOld, highNew])
            let rest = try await store.claim(limit: 10, worker: "w", lease: .seconds(30))
            #expect(rest.map(\.id) == [mediumA, mediumB, lowOld])
            #expect(!rest.contains { $0.id == future })
            #expect(try await store.job(future)?.state == .queued)
            await client.shutdown()
        }
    }

    @Test("a claim fills in the lease, its attempt is recorded once when it ends; kinds filter what is claimed")
    func claimDetails() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let mediaJob = try await store.enqueue(NewJob(kind: .media))
            let chunkJob = try await store.enqueue(NewJob(kind: .chunk, priority: .high))

            let claimed = try await store.claim(limit: 5, worker: "probe-worker", lease: .seconds(45), kinds: [.media])
            #expect(claimed.map(\.id) == [mediaJob])
            let job = try #require(claimed.first)
            #expect(job.state == .running)
            #expect(job.attempt == 1)
            #expect(job.leaseOwner == "probe-worker")
            let leaseLength = try #require(job.leaseExpiresAt).timeIntervalSince(clock.date)
            #expect(abs(leaseLength - 45) < 0.001, "the lease runs 45 s from the claim's time")
            // A running attempt is the job's row with its lease; job_attempts has it once it ends.
            #expect(try await store.attempts(ofJob: mediaJob).isEmpty)
            #expect(try await store.job(chunkJob)?.state == .queued)
            let lease = try #require(job.lease)
            #expect(try await store.complete(lease))
            let attempts = try await store.attempts(ofJob: mediaJob)
            #expect(attempts.count == 1)
            #expect(attempts.first?.worker == "probe-worker")
            #expect(attempts.first?.outcome == .succeeded)
            let startedAt: Date = try await client.query("SELECT started_at FROM jobs WHERE id = $1", [mediaJob]).single().decode("started_at")
            #expect(attempts.first?.startedAt == startedAt)
            await client.shutdown()
        }
    }

    @Test("enqueueing wakes a listener on steno_jobs")
    func enqueueNotifies() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let listener = try PostgresListener(configuration: database.configuration, channels: [JobStore.Channel.jobs])
            var events = try await listener.events(pollInterval: .milliseconds(100)).makeAsyncIterator()
            _ = try await store.enqueue([NewJob(kind: .media), NewJob(kind: .media)])
            guard case .notification(let notification) = try await events.next() else {
                Issue.record("expected a notification")
                return
            }
            #expect(notification.channel == JobStore.Channel.jobs)
            await client.shutdown()
        }
    }
}

@Suite("JobStore: claim plan")
struct JobStoreClaimPlanTests {
    /// The plan of the claim statement itself, as its prepared statement gets it after its
    /// first runs (generic: the values are parameters).
    static func claimPlan(
        _ client: PostgresClient, limit: Int, kinds: [JobKind]?, alone: Bool = false, mode: ClaimMode = .unknown
    ) async throws -> String {
        try await client.withConnection { connection in
            try await connection.query("SET plan_cache_mode = force_generic_plan")
            let claim = JobStore.claimQuery(limit: limit, worker: "w", lease: .seconds(10), kinds: kinds, alone: alone, mode: mode)
            return try await connection.query("EXPLAIN \(claim)").map { $0.text("QUERY PLAN") ?? "" }.joined(separator: "\n")
        }
    }

    @Test("the claim reads each tenant's queue in its partial index, not the table")
    func claimUsesPartialIndex() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            // A realistic table: most jobs finished long ago, a few queued.
            try await client.query(
                """
                INSERT INTO jobs (kind, state, finished_at)
                SELECT 'chunk', 'succeeded', now() FROM generate_series(1, 20000)
                """)
            _ = try await JobStore(client: client).enqueue((0..<20).map { _ in NewJob(kind: .chunk) })
            try await client.query("ANALYZE jobs")
            let plan = try await Self.claimPlan(client, limit: 10, kinds: nil)
            #expect(plan.contains("jobs_tenant_claim_idx"), "\(plan)")
            #expect(!plan.contains("Seq Scan on jobs"), "\(plan)")
            await client.shutdown()
        }
    }

    @Test("a claim without chunk jobs reads the index of the other kinds, not every queued chunk job")
    func claimWithoutChunksUsesItsIndex() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            // A backend paused: thousands of chunk jobs wait, and a few of the other kinds.
            try await client.query("INSERT INTO jobs (kind, priority) SELECT 'chunk', 2 FROM generate_series(1, 5000)")
            let others = try await JobStore(client: client).enqueue([NewJob(kind: .media), NewJob(kind: .chapter), NewJob(kind: .merge)])
            try await client.query("ANALYZE jobs")
            let plan = try await Self.claimPlan(client, limit: 4, kinds: [.media, .chapter, .merge])
            #expect(plan.contains("jobs_tenant_claim_other_idx"), "\(plan)")
            #expect(!plan.contains("jobs_tenant_claim_idx "), "\(plan)")
            let claimed = try await JobStore(client: client).claim(limit: 4, worker: "w", lease: .seconds(10), kinds: [.media, .chapter, .merge])
            #expect(Set(claimed.map(\.id)) == Set(others))
            let chunks = try await JobStore(client: client).claim(limit: 2, worker: "w", lease: .seconds(10), kinds: [.chunk])
            #expect(chunks.count == 2 && chunks.allSatisfy { $0.kind == .chunk })
            await client.shutdown()
        }
    }

    /// Each branch of `JobStore.claimQuery` and the partial index whose predicate its text names.
    struct Branch: Sendable, CustomTestStringConvertible {
        var name: String
        var kinds: [JobKind]?
        var alone = false
        var mode: ClaimMode
        /// The indexes the branch's plan must read the queued jobs from.
        var indexes: [String]
        var testDescription: String { name }
    }

    static let branches: [Branch] = [
        Branch(name: "jobs that run alone", kinds: nil, alone: true, mode: .unknown, indexes: ["jobs_alone_idx"]),
        Branch(name: "one tenant, every kind", kinds: nil, mode: .oneTenant("default"), indexes: ["jobs_tenant_claim_idx"]),
        Branch(name: "one tenant, no chunk jobs", kinds: [.media, .chapter, .merge], mode: .oneTenant("default"), indexes: ["jobs_tenant_claim_other_idx"]),
        Branch(name: "shared, every kind", kinds: nil, mode: .shared(exactCaps: false), indexes: ["jobs_tenant_claim_idx", "jobs_tenant_claim_other_idx"]),
        Branch(name: "shared, no chunk jobs", kinds: [.media, .chapter, .merge], mode: .shared(exactCaps: true), indexes: ["jobs_tenant_claim_other_idx"]),
    ]

    @Test("every branch of the claim reads its partial index on a filled table, never the table", arguments: branches)
    func everyBranchUsesItsIndex(_ branch: Branch) async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            // A fleet's table: 20,000 finished jobs, 5,000 queued chunk jobs of three tenants, a
            // few of the other kinds, a few to run alone, and some running.
            try await client.query("INSERT INTO tenants (name) VALUES ('acme'), ('globex') ON CONFLICT DO NOTHING")
            try await client.query("INSERT INTO jobs (kind, state, finished_at) SELECT 'chunk', 'succeeded', now() FROM generate_series(1, 20000)")
            try await client.query(
                """
                INSERT INTO jobs (kind, priority, tenant)
                SELECT 'chunk', 2, (ARRAY['default', 'acme', 'globex'])[1 + i % 3] FROM generate_series(1, 5000) AS i
                """)
            try await client.query("INSERT INTO jobs (kind, tenant) SELECT k, 'default' FROM unnest(ARRAY['media', 'chapter', 'merge']) AS k")
            try await client.query("INSERT INTO jobs (kind, runs_alone) SELECT 'chunk', true FROM generate_series(1, 3)")
            try await client.query("INSERT INTO jobs (kind, state, lease_owner, lease_expires_at) SELECT 'chunk', 'running', 'w', now() + interval '1 minute' FROM generate_series(1, 20)")
            try await client.query("ANALYZE jobs")
            let plan = try await Self.claimPlan(client, limit: 4, kinds: branch.kinds, alone: branch.alone, mode: branch.mode)
            for index in branch.indexes {
                #expect(plan.contains("using \(index) on jobs q") || plan.contains("using \(index) on jobs"), "\(branch.name) does not read \(index):\n\(plan)")
            }
            #expect(!plan.contains("Seq Scan on jobs"), "\(branch.name) scans the table:\n\(plan)")
        }
    }
}
