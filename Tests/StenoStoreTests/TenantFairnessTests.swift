import Foundation
import StenoCore
import StenoTestSupport
import Synchronization
import Testing

@testable import StenoPostgres
@testable import StenoStore

/// The claim shares the fleet between tenants and between a tenant's media; caps and budgets
/// hold under concurrent claims. Real PostgreSQL, the claim statement workers run.
@Suite("tenants: fair share, caps and budgets at claim time")
struct TenantFairnessTests {
    static func media(_ client: PostgresClient, tenant: String, chunks: Int, priority: JobPriority = .low) async throws -> (Int64, [Int64]) {
        let id: Int64 = try await client.query(
            "INSERT INTO media (source, tenant) VALUES (\("/media/\(tenant)-\(UUID().uuidString).m4b"), \(tenant)) RETURNING id"
        ).single().decode("id")
        let jobs = try await JobStore(client: client).enqueue(
            Array(repeating: NewJob(kind: .chunk, priority: priority, mediaID: id), count: chunks))
        return (id, jobs)
    }

    static func running(_ client: PostgresClient) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await client.query("SELECT tenant, count(*)::integer AS n FROM jobs WHERE state = 'running' GROUP BY tenant") {
            counts[try row.decode("tenant")] = try row.decode("n")
        }
        return counts
    }

    @Test("tenants with backlogs get jobs in flight in proportion to their shares, whatever the backlogs' sizes")
    func sharesSplitJobsInFlight() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let admin = AdminStore(client: client)
            _ = try await Self.media(client, tenant: "archive", chunks: 300)
            _ = try await Self.media(client, tenant: "acme", chunks: 40)
            try await admin.setTenant("acme", TenantChange(share: 3))
            for _ in 0..<10 {
                _ = try await store.claim(limit: 4, worker: "w", lease: .seconds(60))
            }
            #expect(try await Self.running(client) == ["archive": 10, "acme": 30])
            // A share changed while jobs run counts from the next claim.
            try await admin.setTenant("acme", TenantChange(share: 1))
            for _ in 0..<5 {
                _ = try await store.claim(limit: 4, worker: "w", lease: .seconds(60))
            }
            #expect(try await Self.running(client) == ["archive": 30, "acme": 30])
            await client.shutdown()
        }
    }

    @Test("a tenant that adds one short recording behind another's backlog gets the next free slot")
    func newcomerGetsNextSlot() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            // The backlog asks for high priority on everything: that buys nothing across tenants.
            _ = try await Self.media(client, tenant: "archive", chunks: 200, priority: .high)
            let running = try await store.claim(limit: 8, worker: "w", lease: .seconds(60))
            #expect(running.count == 8)
            let (_, short) = try await Self.media(client, tenant: "newsroom", chunks: 3)
            #expect(try await store.complete(try #require(running[0].lease)))
            let next = try await store.claim(limit: 1, worker: "w", lease: .seconds(60))
            #expect(next.map(\.id) == [short[0]], "the newcomer's first chunk job, not the backlog's next")
            // With one job in flight against the backlog's seven, the newcomer gets the next two too.
            let more = try await store.claim(limit: 2, worker: "w", lease: .seconds(60))
            #expect(more.map(\.id) == Array(short[1...2]))
            await client.shutdown()
        }
    }

    @Test("inside a tenant a short recording interleaves with a long one of the same priority; priority still comes first")
    func mediaInterleaveInsideTenant() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let (_, long) = try await Self.media(client, tenant: "acme", chunks: 100)
            // The long one is under way when the short one comes.
            let first = try await store.claim(limit: 4, worker: "w", lease: .seconds(60))
            #expect(first.map(\.id) == Array(long[0..<4]))
            let (_, short) = try await Self.media(client, tenant: "acme", chunks: 3)
            let next = try await store.claim(limit: 2, worker: "w", lease: .seconds(60))
            #expect(next.map(\.id).contains(short[0]), "the short media's first job within the next claim: \(next.map(\.id))")
            let rest = try await store.claim(limit: 4, worker: "w", lease: .seconds(60))
            #expect(Set(short[1...2]).isSubset(of: Set(rest.map(\.id))), "the short media done within two claims: \(rest.map(\.id))")
            // A high-priority media of the same tenant goes before both.
            let (_, urgent) = try await Self.media(client, tenant: "acme", chunks: 2, priority: .high)
            let urgentClaim = try await store.claim(limit: 2, worker: "w", lease: .seconds(60))
            #expect(urgentClaim.map(\.id) == urgent)
            await client.shutdown()
        }
    }

    @Test("a cap of 3 holds fleet-wide under 20 workers claiming at once, checked from the database")
    func capHoldsUnderConcurrentClaims() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 24)
            let store = JobStore(client: client)
            try await AdminStore(client: client).setTenant("capped", TenantChange(maxInFlight: .set(3)))
            let (_, capped) = try await Self.media(client, tenant: "capped", chunks: 60)
            let (_, free) = try await Self.media(client, tenant: "free", chunks: 60)
            // A sampler reads the capped tenant's chunk jobs in flight over and over; each
            // claimer holds what it claimed until the sampler has read once more, so the samples
            // see every claim's jobs in flight. Until the cap has been seen reached, a claimer of
            // the capped tenant's jobs holds them, so that reaching it does not depend on how the
            // machine schedules the claimers (a loaded CI machine once saw only 2 at a time).
            final class Progress: Sendable {
                let samples = Atomic<Int>(0)
                let highest = Atomic<Int>(0)
                let gaveUp = Atomic<Bool>(false)
                let done = Atomic<Bool>(false)
            }
            let progress = Progress()
            let sampler = Task {
                while !progress.done.load(ordering: .acquiring) {
                    let n: Int = try await client.query(
                        "SELECT count(*)::integer AS n FROM jobs WHERE tenant = 'capped' AND kind = 'chunk' AND state = 'running'"
                    ).single().decode("n")
                    _ = progress.highest.max(n, ordering: .releasing)
                    progress.samples.add(1, ordering: .releasing)
                }
                return progress.highest.load(ordering: .acquiring)
            }
            let cappedJobs = Set(capped)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<20 {
                    group.addTask {
                        while true {
                            let jobs = try await store.claim(limit: 2, worker: "worker-\(worker)", lease: .seconds(60), mode: .shared(exactCaps: true))
                            if jobs.isEmpty {
                                let left = try await client.query(
                                    "SELECT count(*)::integer AS n FROM jobs WHERE state IN ('queued', 'running')").single().decode("n", as: Int.self)
                                if left == 0 { return }
                                await Task.yield()
                                continue
                            }
                            if jobs.contains(where: { cappedJobs.contains($0.id) }), !progress.gaveUp.load(ordering: .acquiring) {
                                // Bounded: with a claim that lets fewer than 3 run, the first wait
                                // gives up, the others do not wait, and the expectation below fails.
                                let reached = try await polled(within: .seconds(30)) { progress.highest.load(ordering: .acquiring) >= 3 ? true : nil }
                                if reached == nil { progress.gaveUp.store(true, ordering: .releasing) }
                            }
                            let seen = progress.samples.load(ordering: .acquiring)
                            while progress.samples.load(ordering: .acquiring) < seen + 2 { await Task.yield() }
                            #expect(try await store.complete(jobs.compactMap(\.lease)).count == jobs.count)
                        }
                    }
                }
                try await group.waitForAll()
            }
            progress.done.store(true, ordering: .releasing)
            let highest = try await sampler.value
            #expect(highest <= 3, "the capped tenant had \(highest) chunk jobs in flight at once")
            #expect(highest == 3, "the cap was reached: the test saw contention")
            let succeeded: Int = try await client.query(
                "SELECT count(*)::integer AS n FROM jobs WHERE state = 'succeeded' AND id = ANY(\(capped + free))").single().decode("n")
            #expect(succeeded == 120)
            await client.shutdown()
        }
    }

    /// Cap locks granted, or waited for, right now, in this test's database (the suite's other
    /// tests take cap locks in theirs).
    static func capLockWaits(_ client: PostgresClient, granted: Bool) async throws -> Int {
        try await client.query(
            """
            SELECT count(*)::integer AS n FROM pg_locks
            WHERE locktype = 'advisory' AND granted = \(granted) AND classid = \(Int64(TenantSettings.capLockNamespace))::oid
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        ).single().decode("n")
    }

    @Test(
        "a claim does not wait for a capped tenant's lock another claim holds: it takes other tenants' jobs, and waits only when nothing else is left",
        // A claim that waits for the lock never returns, and the holder waits for it: bounded.
        .timeLimit(.minutes(1)))
    func capLockHeldElsewhereSkipsThatTenant() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 4)
            let store = JobStore(client: client)
            try await AdminStore(client: client).setTenant("capped", TenantChange(maxInFlight: .set(5)))
            let (_, capped) = try await Self.media(client, tenant: "capped", chunks: 2)
            let (_, free) = try await Self.media(client, tenant: "free", chunks: 2)
            // Another claim's transaction, holding the capped tenant's lock until told to end.
            let holderClient = database.client(maxConnections: 1)
            let (release, releaser) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await holderClient.withConnection { connection in
                    try await connection.withTransaction { connection in
                        try await connection.query("SELECT pg_advisory_xact_lock(\(TenantSettings.capLockNamespace), hashtext('capped'))")
                        for await _ in release { break }
                    }
                }
            }
            let lockHeld = try await polled { try await Self.capLockWaits(client, granted: true) > 0 ? true : nil }
            try #require(lockHeld == true, "the holder never took the lock")
            // Had the claim waited for the lock, it would not return before the holder commits
            // (and the suite's time limit would fail the test).
            let first = try await store.claim(limit: 4, worker: "w1", lease: .seconds(60), mode: .shared(exactCaps: true))
            #expect(Set(first.map(\.id)) == Set(free), "only the free tenant's jobs, at once: \(first.map(\.id))")
            // Now only the capped tenant's jobs are left: the claim waits for its lock.
            let second = Task { try await store.claim(limit: 4, worker: "w2", lease: .seconds(60), mode: .shared(exactCaps: true)) }
            let waiting = try await polled { try await Self.capLockWaits(client, granted: false) > 0 ? true : nil }
            #expect(waiting == true, "the second claim never waited for the capped tenant's lock")
            releaser.yield()
            releaser.finish()
            try await holder.value
            await holderClient.shutdown()
            let taken = try await second.value
            #expect(Set(taken.map(\.id)) == Set(capped), "the capped tenant's jobs once the lock was free: \(taken.map(\.id))")
            await client.shutdown()
        }
    }

    @Test("with 100,000 tenants and two with work, a claim reads a few hundred pages, not every tenant")
    func claimCostDoesNotGrowWithIdleTenants() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            // Every API key's tenant has a row; a large fleet's are mostly idle.
            try await client.query("INSERT INTO tenants (name) SELECT 'idle-' || n FROM generate_series(1, 100000) AS n")
            try await AdminStore(client: client).setTenant("idle-7", TenantChange(maxInFlight: .set(2)))
            _ = try await Self.media(client, tenant: "acme", chunks: 20)
            _ = try await Self.media(client, tenant: "globex", chunks: 20)
            try await client.query("ANALYZE tenants")
            try await client.query("ANALYZE jobs")
            let mode = try await store.claimMode()
            #expect(mode == .shared(exactCaps: true))
            // The claim statement as the worker runs it, with its buffers counted.
            let pages = try await client.withConnection { connection in
                try await connection.query("BEGIN")
                let caps = try await JobStore.capLocks(waiting: false, alone: false, now: "now()", on: connection)
                let claim = JobStore.claimQuery(limit: 10, worker: "w", lease: .seconds(10), mode: mode, lockedCaps: caps.locked)
                let plan = try await connection.query("EXPLAIN (ANALYZE, BUFFERS) \(claim)").map { $0.text("QUERY PLAN") ?? "" }
                try await connection.query("ROLLBACK")
                // The first line with buffers is the statement's total.
                let totals = plan.first { $0.contains("Buffers:") } ?? ""
                let counts = totals.matches(of: /(hit|read)=(\d+)/).compactMap { Int($0.output.2) }
                return (counts.reduce(0, +), plan.joined(separator: "\n"))
            }
            #expect(pages.0 > 0 && pages.0 < 1_000, "\(pages.0) pages for one claim:\n\(pages.1)")
            #expect(!pages.1.contains("Seq Scan on tenants"), "\(pages.1)")
            // And the claim still shares: both tenants with work get jobs.
            let claimed = try await store.claim(limit: 10, worker: "w", lease: .seconds(60), mode: mode)
            let tenants: [String] = try await client.query("SELECT DISTINCT tenant FROM jobs WHERE id = ANY(\(claimed.map(\.id))) ORDER BY tenant")
                .map { try $0.decode("tenant") }
            #expect(tenants == ["acme", "globex"])
            // The heartbeat's read of the claim mode uses the indexes too.
            let modePlan = try await client.query("EXPLAIN SELECT * FROM \(JobStore.tenantsForClaimMode)").map { $0.text("QUERY PLAN") ?? "" }
                .joined(separator: "\n")
            #expect(!modePlan.contains("Seq Scan on tenants"), "\(modePlan)")
            await client.shutdown()
        }
    }

    @Test("a tenant over its budget gets no chunk jobs, its media show why, and raising the budget resumes them")
    func budgetHoldsAndResumes() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let admin = AdminStore(client: client)
            try await admin.setTenant("acme", TenantChange(dailyAudioHours: .set(1)))
            // An hour paid today, through the trigger that counts a finished chunk.
            let (spent, _) = try await Self.media(client, tenant: "acme", chunks: 0)
            let chapter = try await TestData.insertChapter(client, mediaID: spent, index: 0)
            try await client.query(
                "INSERT INTO chunks (media_id, chapter_id, index, start_seconds, end_seconds) VALUES (\(spent), \(chapter), 0, 0, 3600)")
            try await client.query(
                "UPDATE chunks SET state = 'succeeded', usage_seconds = 3600, cost_usd = 0.36, finished_at = now() WHERE media_id = \(spent)")
            let usage = try #require(try await admin.tenantUsage(tenant: "acme", since: Date().addingTimeInterval(-86_400)).first?.usage)
            #expect(usage.paidSeconds == 3600 && usage.audioSeconds == 3600 && usage.costUSD == 0.36 && usage.chunks == 1)

            let (held, heldJobs) = try await Self.media(client, tenant: "acme", chunks: 2)
            let mediaJob = try await store.enqueue(NewJob(kind: .media, mediaID: held))
            let (_, otherTenant) = try await Self.media(client, tenant: "other", chunks: 1)
            let claimed = try await store.claim(limit: 10, worker: "w", lease: .seconds(60))
            #expect(Set(claimed.map(\.id)) == Set([mediaJob] + otherTenant), "only the held tenant's other kinds, and the other tenant's work")
            let holds = try await admin.holds(of: held)
            let hold = try #require(holds.first { $0.kind == .overBudget }, "holds: \(holds)")
            #expect(hold.message.contains("daily budget of 1 audio hours"), "\(hold.message)")
            #expect(hold.message.contains("steno tenants set acme --daily-audio-hours"), "\(hold.message)")
            #expect(try await admin.tenants(named: "acme")[0].heldReason != nil)

            try await admin.setTenant("acme", TenantChange(dailyAudioHours: .set(2)))
            let resumed = try await store.claim(limit: 10, worker: "w", lease: .seconds(60))
            #expect(Set(resumed.map(\.id)) == Set(heldJobs), "raised: the held chunk jobs run")
            #expect(try await admin.holds(of: held).allSatisfy { $0.kind != .overBudget })
            await client.shutdown()
        }
    }

    @Test("a chunk job that runs alone keeps its tenant's budget and cap; other kinds run alone regardless")
    func aloneKeepsBudgetsAndCaps() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let store = JobStore(client: client)
            let admin = AdminStore(client: client)
            // acme over a budget of no audio at all; globex at its cap of one chunk job.
            try await admin.setTenant("acme", TenantChange(dailyAudioHours: .set(0)))
            try await admin.setTenant("globex", TenantChange(maxInFlight: .set(1)))
            let (_, acmeChunks) = try await Self.media(client, tenant: "acme", chunks: 1)
            let (acmeMedia, _) = try await Self.media(client, tenant: "acme", chunks: 0)
            let acmeMerge = try await store.enqueue(NewJob(kind: .merge, mediaID: acmeMedia))
            let (_, globexChunks) = try await Self.media(client, tenant: "globex", chunks: 2)
            try await client.query("UPDATE jobs SET runs_alone = true WHERE id = ANY(\(acmeChunks + [acmeMerge, globexChunks[1]]))")
            try await client.query("UPDATE jobs SET runs_alone = false WHERE id = \(globexChunks[0])")
            let running = try await store.claim(limit: 1, worker: "w", lease: .seconds(60), kinds: [.chunk], mode: .shared(exactCaps: true))
            #expect(running.map(\.id) == [globexChunks[0]], "globex's one slot taken")

            let first = try await store.claimAlone(worker: "a", lease: .seconds(60))
            #expect(first?.id == acmeMerge, "a merge costs nothing: it runs alone over the budget")
            #expect(try await store.claimAlone(worker: "b", lease: .seconds(60)) == nil, "acme is over its budget and globex at its cap")

            try await store.complete(try #require(running.first?.lease))
            #expect(try await store.claimAlone(worker: "c", lease: .seconds(60))?.id == globexChunks[1], "a slot freed: globex's job runs alone")
            try await admin.setTenant("acme", TenantChange(dailyAudioHours: .set(5)))
            #expect(try await store.claimAlone(worker: "d", lease: .seconds(60))?.id == acmeChunks[0], "the budget raised: acme's job runs alone")
        }
    }

    @Test("deleting a capped tenant's running media frees its slots: nothing stays stuck")
    func deletingRunningMediaFreesCap() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let admin = AdminStore(client: client)
            try await admin.setTenant("acme", TenantChange(maxInFlight: .set(1)))
            let (first, _) = try await Self.media(client, tenant: "acme", chunks: 1)
            let (_, second) = try await Self.media(client, tenant: "acme", chunks: 1)
            #expect(try await store.claim(limit: 5, worker: "w", lease: .seconds(60), mode: .shared(exactCaps: true)).count == 1)
            #expect(try await store.claim(limit: 5, worker: "w", lease: .seconds(60), mode: .shared(exactCaps: true)).isEmpty, "at its cap")
            let holds = try await admin.holds(of: try await client.query("SELECT media_id FROM jobs WHERE id = \(second[0])").single().decode("media_id"))
            #expect(holds.contains { $0.kind == .tenantCap && $0.message.contains("--max-in-flight") }, "\(holds)")
            try await client.query("DELETE FROM media WHERE id = \(first)")
            let next = try await store.claim(limit: 5, worker: "w", lease: .seconds(60), mode: .shared(exactCaps: true))
            #expect(next.map(\.id) == second)
            await client.shutdown()
        }
    }

    @Test("a worker's heartbeat reads the claim mode: one tenant's own order while one tenant has work, fair share once another has work too or a cap comes")
    func heartbeatReadsClaimMode() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            func beat() async throws -> ClaimMode {
                try await WorkStore(client: client).heartbeatWorker(
                    workerID: "w", status: .running, message: nil, jobsInFlight: 0, pausedBackends: [:]
                ).claimMode
            }
            #expect(try await beat() == .oneTenant("default"))
            try await AdminStore(client: client).setTenant("default", TenantChange(maxInFlight: .set(2)))
            #expect(try await beat() == .shared(exactCaps: true))
            try await AdminStore(client: client).setTenant("default", TenantChange(maxInFlight: .clear, monthlyCostUSD: .set(10)))
            #expect(try await beat() == .shared(exactCaps: false), "a budget needs the shared claim, which reads it")
            try await AdminStore(client: client).setTenant("default", TenantChange(monthlyCostUSD: .clear))
            #expect(try await beat() == .oneTenant("default"))
            // Idle tenants cost nothing: with only acme's jobs queued, acme's own order.
            try await client.query("INSERT INTO tenants (name) SELECT 'idle-' || n FROM generate_series(1, 50) AS n")
            _ = try await Self.media(client, tenant: "acme", chunks: 1)
            #expect(try await beat() == .oneTenant("acme"))
            _ = try await Self.media(client, tenant: "default", chunks: 1)
            #expect(try await beat() == .shared(exactCaps: false))
            #expect(try await JobStore(client: client).claimMode() == .shared(exactCaps: false))
            await client.shutdown()
        }
    }

    @Test("one tenant's claim takes its jobs in the order the shared claim does, from its index")
    func oneTenantClaimKeepsOrder() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let (_, long) = try await Self.media(client, tenant: "default", chunks: 6)
            _ = try await store.claim(limit: 2, worker: "w", lease: .seconds(60), mode: .oneTenant("default"))
            let (_, short) = try await Self.media(client, tenant: "default", chunks: 2)
            let (_, urgent) = try await Self.media(client, tenant: "default", chunks: 1, priority: .high)
            var order: [Int64] = []
            while true {
                let claimed = try await store.claim(limit: 1, worker: "w", lease: .seconds(60), mode: .oneTenant("default"))
                guard let job = claimed.first else { break }
                order.append(job.id)
            }
            #expect(order.first == urgent[0], "priority first: \(order)")
            #expect(Array(order.dropFirst().prefix(4)) == [long[2], short[0], long[3], short[1]], "the media interleave: \(order)")
            #expect(Set(order) == Set(long[2...] + short + urgent))
            let plan = try await client.withConnection { connection in
                try await connection.query("SET plan_cache_mode = force_generic_plan")
                let claim = JobStore.claimQuery(limit: 4, worker: "w", lease: .seconds(10), mode: .oneTenant("default"))
                return try await connection.query("EXPLAIN \(claim)").map { $0.text("QUERY PLAN") ?? "" }.joined(separator: "\n")
            }
            // Its queue read in its index, with none of the shared claim's ranking.
            #expect(plan.contains("Index Scan using jobs_tenant_claim_idx on jobs q") && !plan.contains("WindowAgg"), "\(plan)")
            await client.shutdown()
        }
    }

    @Test("the claim mode follows the tenants", arguments: [
        (1, "default", false, false, ClaimMode.oneTenant("default")),
        (1, "default", true, false, ClaimMode.shared(exactCaps: true)),
        (1, "default", false, true, ClaimMode.shared(exactCaps: false)),
        (2, "acme", false, false, ClaimMode.shared(exactCaps: false)),
        (0, nil, false, false, ClaimMode.shared(exactCaps: false)),
    ])
    func claimModeDecision(tenants: Int, first: String?, anyCap: Bool, anyBudget: Bool, mode: ClaimMode) {
        #expect(ClaimMode.decide(tenants: tenants, first: first, anyCap: anyCap, anyBudget: anyBudget) == mode)
    }

    @Test("tenant settings reject what cannot be kept, with a message that says what to give")
    func settingsValidated() async throws {
        let base = TenantSettings()
        #expect(throws: Never.self) { try TenantChange(share: 2, maxInFlight: .set(4)).applied(to: base).get() }
        for bad in [TenantChange(share: 0), TenantChange(share: .nan), TenantChange(maxInFlight: .set(0)), TenantChange(dailyAudioHours: .set(-1)),
                    TenantChange(monthlyCostUSD: .set(.infinity)), TenantChange(dailyCostUSD: .set(1e20)),
                    TenantChange(maxInFlight: .set(Int.max)), TenantChange(monthlyAudioHours: .set(1e300))] {
            guard case .failure(let problem) = bad.applied(to: base) else {
                Issue.record("accepted \(bad)")
                continue
            }
            #expect(problem.description.contains("must"), "\(problem)")
        }
        let capped = try TenantChange(maxInFlight: .set(3)).applied(to: base).get()
        #expect(try TenantChange(maxInFlight: .clear).applied(to: capped).get().maxInFlight == nil)
        #expect(try TenantChange().applied(to: capped).get().maxInFlight == 3)
    }
}
