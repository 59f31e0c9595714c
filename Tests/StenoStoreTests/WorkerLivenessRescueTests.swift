import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// Rescue by liveness (migration 0012): a worker's listening session holds an advisory lock for
/// as long as its process lives. Here a plain session stands in for that listener: closing it is
/// the process dying, keeping it open is a process that is alive however late its heartbeat.
@Suite("JobStore: a dead worker noticed at once, a live one never robbed")
struct WorkerLivenessRescueTests {
    /// Rescue at once after a death: no grace for a server that just started (the test cluster may be young).
    static let atOnce = RescuePolicy(startGrace: .zero, hangLimit: .seconds(300), crashBudget: 4)

    /// Registers `worker` and takes its liveness lock on a session of its own, as its listener does.
    static func liveWorker(_ worker: String, _ database: TestDatabase) async throws -> (key: Int32, session: PostgresConnection) {
        let client = database.client(maxConnections: 1)
        let key = try await WorkStore(client: client).register(workerID: worker, hostname: "test", pid: 1, version: "test")
        await client.shutdown()
        let session = PostgresConnection(configuration: database.configuration)
        let taken: Bool = try await session.query(
            "SELECT pg_try_advisory_lock(\(RescuePolicy.lockNamespace), \(key)) AS taken").single().decode("taken")
        #expect(taken)
        try await session.query(JobStore.lockTaken(worker: worker))
        return (key, session)
    }

    /// The process dies: its session ends, and PostgreSQL frees the lock once the backend is gone.
    static func die(_ session: PostgresConnection, key: Int32, _ client: PostgresClient) async throws {
        await session.close()
        try await poll(until: {
            try await client.query(
                """
                SELECT count(*)::integer AS n FROM pg_locks
                WHERE locktype = 'advisory' AND classid = \(Int64(RescuePolicy.lockNamespace))::bigint::oid AND objid = \(Int64(key))::bigint::oid
                  AND objsubid = 2 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """
            ).single().decode("n", as: Int.self) == 0
        }, "the liveness lock \(key) freed after its session closed")
    }

    @Test("a job whose worker's process died is taken back at once, before its lease ends, without using up an attempt")
    func deadWorkerRescuedAtOnce() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let (key, session) = try await Self.liveWorker("doomed", database)
            let lease = try #require(try await store.claim(limit: 1, worker: "doomed", lease: .seconds(600)).first?.lease)

            #expect(try await store.rescueExpired(policy: Self.atOnce).isEmpty, "a live worker keeps its job")
            try await Self.die(session, key: key, client)
            let rescued = try await store.rescueExpired(policy: Self.atOnce)
            #expect(rescued.map(\.id) == [id])
            #expect(rescued.first?.state == .queued)

            let job = try #require(try await store.job(id))
            #expect(job.maxAttempts == 6, "the attempt was given back")
            #expect(job.crashRescues == 1)
            #expect(!job.runsAlone)
            #expect(job.errorMessage == "the process of worker doomed died (unseen) while running it")
            let attempts = try await store.attempts(ofJob: id)
            #expect(attempts.map(\.outcome) == [.workerDied])
            #expect(try await store.complete(lease) == false, "the dead worker's lease is fenced")
            await client.shutdown()
        }
    }

    @Test("a live worker whose heartbeat stopped keeps its jobs past the lease, until the hang limit")
    func liveWorkerKeepsExpiredLease() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let (_, session) = try await Self.liveWorker("paused", database)
            // Its last beat on the test's clock, as every time below: the other worker's
            // heartbeat sees the lease expired, and how long ago the beat was, by that clock alone.
            try await client.query("UPDATE workers SET last_heartbeat_at = \(clock.date)::timestamptz WHERE id = 'paused'")
            let lease = try #require(try await store.claim(limit: 1, worker: "paused", lease: .milliseconds(100)).first?.lease)
            clock.advance(by: .milliseconds(300))

            #expect(try await store.rescueExpired(policy: Self.atOnce).isEmpty, "SIGSTOP longer than the lease: the job stays")
            let due = try await WorkStore(client: client, time: .given(by: clock)).heartbeatWorker(
                workerID: "another", status: .running, message: nil, jobsInFlight: 0, pausedBackends: [:], rescue: Self.atOnce
            ).due
            #expect(due.leaseExpiresIn == nil, "no rescue is due for a live worker's lease")
            #expect(!due.ownersDied)
            let hungIn = try #require(due.hungIn, "the live worker's expired lease makes a hang check due")
            #expect(abs(hungIn - 299.7) < 0.001, "the hang limit less the 0.3 s since the worker's beat: \(hungIn) s left")

            // The process is still there but has not beaten for longer than the hang limit.
            try await client.query(
                "UPDATE workers SET last_heartbeat_at = \(clock.date)::timestamptz - interval '301 seconds' WHERE id = 'paused'")
            let rescued = try await store.rescueExpired(policy: Self.atOnce)
            #expect(rescued.map(\.id) == [id])
            #expect(try await store.attempts(ofJob: id).map(\.outcome) == [.leaseExpired], "a hang is charged like a failure")
            #expect(try await store.complete(lease) == false)
            await session.close()
            await client.shutdown()
        }
    }

    @Test("just after the server restarted, a lock not yet taken again is no death: the worker may still be reconnecting")
    func noDeathWithinStartGrace() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            _ = try await store.enqueue(NewJob(kind: .chunk))
            let (key, session) = try await Self.liveWorker("reconnecting", database)
            _ = try #require(try await store.claim(limit: 1, worker: "reconnecting", lease: .seconds(600)).first)
            try await Self.die(session, key: key, client)
            let young = RescuePolicy(startGrace: .seconds(100 * 365 * 86_400), hangLimit: .seconds(300), crashBudget: 4)
            let died = try await WorkStore(client: client).heartbeatWorker(
                workerID: "another", status: .running, message: nil, jobsInFlight: 0, pausedBackends: [:], rescue: young
            ).due
            #expect(died.ownersDied, "it had taken its lock on this server and lost it: dead, grace or not")
            // As if the lock had been taken on the server before a restart, and not again since.
            try await client.query(
                "UPDATE workers SET liveness_locked_at = pg_postmaster_start_time() - interval '1 minute' WHERE id = 'reconnecting'")
            #expect(try await store.rescueExpired(policy: young).isEmpty)
            let due = try await WorkStore(client: client).heartbeatWorker(
                workerID: "another", status: .running, message: nil, jobsInFlight: 0, pausedBackends: [:], rescue: young
            ).due
            #expect(!due.ownersDied)
            #expect(due.leaseExpiresIn ?? 0 > 500, "its lease is what takes it back then")
            let lateDue = try await WorkStore(client: client).heartbeatWorker(
                workerID: "another", status: .running, message: nil, jobsInFlight: 0, pausedBackends: [:], rescue: Self.atOnce
            ).due
            #expect(lateDue.ownersDied)
            await client.shutdown()
        }
    }

    /// Lets a quarantined job's wait pass: the test is about the verdicts, not the clock.
    static func waitPassed(_ id: Int64, _ client: PostgresClient) async throws {
        // Against the moment of its rescue (`updated_at`), not the clock now: on a loaded machine
        // the wait may be over by the time this looks.
        let waiting: Bool = try await client.query(
            "SELECT run_at >= updated_at + interval '1 second' AS waiting FROM jobs WHERE id = \(id)").single().decode("waiting")
        #expect(waiting, "a quarantined job waits at least a second before it runs again")
        try await client.query("UPDATE jobs SET run_at = now() WHERE id = \(id)")
    }

    @Test("a job at each unseen death of its worker, where no other job dies, is suspected at two, runs alone, fails at the budget")
    func poisonJobRunsAloneThenFails() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let poison = try await store.enqueue(NewJob(kind: .merge))
            for death in 1...4 {
                let (key, session) = try await Self.liveWorker("crashing-\(death)", database)
                let claimed = try await store.claim(limit: 5, worker: "crashing-\(death)", lease: .seconds(600))
                let alone = try await store.claimAlone(worker: "crashing-\(death)", lease: .seconds(600))
                #expect((claimed + [alone].compactMap { $0 }).map(\.id) == [poison], "death \(death)")
                if death > RescuePolicy.aloneAfter {
                    #expect(claimed.isEmpty, "a job that must run alone is not claimed beside others")
                    #expect(alone?.runsAlone == true)
                }
                try await Self.die(session, key: key, client)
                let rescued = try await store.rescueExpired(policy: Self.atOnce)
                #expect(rescued.map(\.state) == [death < 4 ? .queued : .failed], "death \(death)")
                let job = try #require(try await store.job(poison))
                #expect(job.runsAlone == (death >= RescuePolicy.aloneAfter), "death \(death): suspected from the second")
                if death >= RescuePolicy.aloneAfter && death < 4 {
                    #expect(job.errorMessage?.hasPrefix("quarantined, runs alone after") == true, "\(job.errorMessage ?? "")")
                    try await Self.waitPassed(poison, client)
                }
            }
            let job = try #require(try await store.job(poison))
            #expect(job.state == .failed)
            #expect(job.crashRescues == 4)
            #expect(job.errorMessage?.contains("it died with its worker 4 times (unseen ×4)") == true, "\(job.errorMessage ?? "")")
            #expect(job.errorMessage?.contains("predicts 0") == true, "\(job.errorMessage ?? "")")
            #expect(try await store.attempts(ofJob: poison).map(\.outcome) == Array(repeating: .workerDied, count: 4))
            await client.shutdown()
        }
    }

    @Test("a supervisor's evidence: a crash signal quarantines the job at once and fails it at the fourth, naming the signal")
    func crashSignalsFromTheSupervisor() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let work = WorkStore(client: client)
            let poison = try await store.enqueue(NewJob(kind: .merge))
            for crash in 1...4 {
                let worker = "supervised-\(crash)"
                try await work.register(workerID: worker, hostname: "test", pid: 1, version: "test", supervisorKey: 7)
                let claimed = try await store.claim(limit: 5, worker: worker, lease: .seconds(600))
                    + [try await store.claimAlone(worker: worker, lease: .seconds(600))].compactMap { $0 }
                #expect(claimed.map(\.id) == [poison], "crash \(crash)")
                let rescued = try await work.rescueProcessDeath(workerID: worker, exit: .signaled(11), policy: Self.atOnce)
                #expect(rescued.map(\.state) == [crash < 4 ? .queued : .failed], "crash \(crash)")
                let job = try #require(try await store.job(poison))
                #expect(job.runsAlone, "one crash is enough to run alone")
                if crash < 4 { try await Self.waitPassed(poison, client) }
                let exit: String? = try await client.query("SELECT exit FROM workers WHERE id = \(worker)").single().decode("exit")
                #expect(exit == "SIGSEGV")
            }
            let job = try #require(try await store.job(poison))
            #expect(job.errorMessage?.contains("its worker's process crashed 4 times while running it (SIGSEGV ×4)") == true, "\(job.errorMessage ?? "")")
            let recorded = try await client.query("SELECT worker_exit, crashed FROM job_attempts WHERE job_id = \(poison) ORDER BY attempt")
                .map { (try $0.decode("worker_exit", as: String.self), try $0.decode("crashed", as: Bool.self)) }
            #expect(recorded.map(\.0) == Array(repeating: "SIGSEGV", count: 4))
            #expect(recorded.allSatisfy { $0.1 })
            await client.shutdown()
        }
    }

    @Test("kills from outside in a fleet where workers die often are chance: a long job killed at each of four runs is queued again, not blamed")
    func outsideKillsAreNotBlamed() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            // Every time here is the test's clock: a job's running time decides its verdict.
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let work = WorkStore(client: client, time: .given(by: clock))
            let now = clock.date
            // The last ten minutes of a preemptible fleet: other jobs ran 1,500 s and 80 of
            // their attempts ended in a kill; this job ran 15 s each time and was killed thrice.
            let others = try await store.enqueue(NewJob(kind: .chunk))
            let long = try await store.enqueue(NewJob(kind: .merge))
            try await client.query(
                """
                INSERT INTO job_attempts (job_id, attempt, worker, started_at, finished_at, outcome, worker_exit, crashed)
                SELECT \(others), n, 'elsewhere', \(now)::timestamptz - interval '600 seconds' + n * interval '1 second',
                       \(now)::timestamptz - interval '600 seconds' + n * interval '1 second' + interval '18.75 seconds', 'worker_died', 'SIGKILL', false
                FROM generate_series(1, 80) AS n
                """)
            try await client.query("UPDATE jobs SET attempt = 80, max_attempts = 100 WHERE id = \(others)")
            try await client.query(
                """
                INSERT INTO job_attempts (job_id, attempt, worker, started_at, finished_at, outcome, worker_exit, crashed)
                SELECT \(long), n, 'elsewhere', \(now)::timestamptz - n * interval '100 seconds', \(now)::timestamptz - n * interval '100 seconds' + interval '15 seconds',
                       'worker_died', 'SIGKILL', false
                FROM generate_series(1, 3) AS n
                """)
            try await client.query("UPDATE jobs SET attempt = 3, max_attempts = max_attempts + 3, crash_rescues = 3 WHERE id = \(long)")
            try await work.register(workerID: "preempted", hostname: "test", pid: 1, version: "test", supervisorKey: 8)
            let claimed = try await store.claim(limit: 5, worker: "preempted", lease: .seconds(600))
            #expect(claimed.map(\.id).contains(long))
            // It has run for 15 s this time too.
            clock.advance(by: .seconds(15))
            let rescued = try await work.rescueProcessDeath(workerID: "preempted", exit: .signaled(9), policy: Self.atOnce)
            #expect(rescued.first { $0.id == long }?.state == .queued)
            let job = try #require(try await store.job(long))
            #expect(!job.runsAlone, "four kills in 60 s of running, where the fleet predicts 3.2, are chance")
            #expect(job.errorMessage == "the process of worker preempted died (SIGKILL) while running it")
            // The same four kills of a job that ran a fifth of a second each time would be its own doing.
            let brief = try await store.enqueue(NewJob(kind: .merge))
            try await client.query(
                """
                INSERT INTO job_attempts (job_id, attempt, worker, started_at, finished_at, outcome, worker_exit, crashed)
                SELECT \(brief), n, 'elsewhere', \(now)::timestamptz - n * interval '100 seconds', \(now)::timestamptz - n * interval '100 seconds' + interval '0.2 seconds',
                       'worker_died', 'SIGKILL', false
                FROM generate_series(1, 3) AS n
                """)
            try await client.query(
                "UPDATE jobs SET attempt = 3, max_attempts = max_attempts + 3, crash_rescues = 3, run_at = \(clock.date)::timestamptz WHERE id = \(brief)")
            try await work.register(workerID: "oom", hostname: "test", pid: 1, version: "test", supervisorKey: 9)
            let again = try await store.claim(limit: 5, worker: "oom", lease: .seconds(600))
            #expect(again.map(\.id).contains(brief))
            let failed = try await work.rescueProcessDeath(workerID: "oom", exit: .signaled(9), policy: Self.atOnce)
            #expect(failed.first { $0.id == brief }?.state == .failed)
            await client.shutdown()
        }
    }

    @Test("a brief job killed four times is weighed against every job the fleet ran in the hour: among 300, suspected, not failed")
    func blameWeighsEveryJobOfTheWindow() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            // Every time here is the test's clock: the job's running time decides the verdict.
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let work = WorkStore(client: client, time: .given(by: clock))
            let now = clock.date
            // A kill storm's hour, as a clean-clone chaos run had it: 300 other jobs ran 1.73 s
            // each (519 s) and 53 of them died with their worker. This job ran a second each
            // time and died each time: for one job a chance below 1 in 1000, but among 301 jobs
            // one so unlucky is to be expected.
            try await client.query(
                """
                WITH others AS (
                    INSERT INTO jobs (kind, state, attempt, started_at, finished_at)
                    SELECT 'chunk', 'succeeded', 1, \(now)::timestamptz - interval '600 seconds', \(now)::timestamptz - interval '598 seconds'
                    FROM generate_series(1, 300)
                    RETURNING id
                )
                INSERT INTO job_attempts (job_id, attempt, worker, started_at, finished_at, outcome, worker_exit, crashed)
                SELECT o.id, 1, 'elsewhere', \(now)::timestamptz - interval '600 seconds', \(now)::timestamptz - interval '598.27 seconds',
                       CASE WHEN o.n <= 53 THEN 'worker_died' ELSE 'succeeded' END, CASE WHEN o.n <= 53 THEN 'SIGKILL' END, false
                FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM others) AS o
                """)
            let unlucky = try await store.enqueue(NewJob(kind: .chunk))
            try await client.query(
                """
                INSERT INTO job_attempts (job_id, attempt, worker, started_at, finished_at, outcome, worker_exit, crashed)
                SELECT \(unlucky), n, 'elsewhere', \(now)::timestamptz - n * interval '100 seconds',
                       \(now)::timestamptz - n * interval '100 seconds' + interval '1 second', 'worker_died', 'SIGKILL', false
                FROM generate_series(1, 3) AS n
                """)
            try await client.query(
                "UPDATE jobs SET attempt = 3, max_attempts = max_attempts + 3, crash_rescues = 3, run_at = \(now)::timestamptz WHERE id = \(unlucky)")
            try await work.register(workerID: "stormed", hostname: "test", pid: 1, version: "test", supervisorKey: 10)
            let claimed = try await store.claim(limit: 5, worker: "stormed", lease: .seconds(600))
            #expect(claimed.map(\.id) == [unlucky])
            clock.advance(by: .milliseconds(840))
            let rescued = try await work.rescueProcessDeath(workerID: "stormed", exit: .signaled(9), policy: Self.atOnce)
            #expect(rescued.first { $0.id == unlucky }?.state == .queued, "an innocent among many is not failed")
            let job = try #require(try await store.job(unlucky))
            #expect(job.runsAlone, "for one job, four deaths in 3.84 s where the fleet predicts 0.37 are suspect")
            let reason = job.errorMessage ?? ""
            #expect(reason.hasPrefix("quarantined, runs alone after"), "\(reason)")
            #expect(reason.contains("4 times (SIGKILL ×4) in 3.84 s of running"), "\(reason)")
            // The rate with its prior (a tenth of a death in 30 s, `DeathRecord.priorDeaths`): 53.1 in 549 s.
            #expect(reason.contains("53 such deaths in 519 s") && reason.contains("predicts 0.37: a chance of below 1 in 1000"), "\(reason)")
            #expect(reason.contains("and of 0.18 that one of the hour's 301 jobs would die so often"), "\(reason)")
            await client.shutdown()
        }
    }

    @Test("the fleet leaves a dead worker's jobs to its live supervisor, and takes them once the supervisor is gone too")
    func liveSupervisorTakesItsOwn() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let supervisor = PostgresConnection(configuration: database.configuration)
            let held: Bool = try await supervisor.query(
                "SELECT pg_try_advisory_lock(\(RescuePolicy.supervisorNamespace), 4242) AS taken").single().decode("taken")
            #expect(held)
            let (key, session) = try await Self.liveWorker("child", database)
            try await client.query("UPDATE workers SET supervisor_key = 4242 WHERE id = 'child'")
            _ = try await store.claim(limit: 1, worker: "child", lease: .seconds(600))
            try await Self.die(session, key: key, client)
            #expect(try await store.rescueExpired(policy: Self.atOnce).isEmpty, "its supervisor takes them back, with the evidence")
            await supervisor.close()
            try await poll(until: {
                try await !store.rescueExpired(policy: Self.atOnce).isEmpty
            }, "the fleet takes the jobs once the supervisor is gone as well")
            #expect(try await store.job(id)?.state == .queued)
            await client.shutdown()
        }
    }

    @Test("an owner with no liveness key (a worker from before it) loses its job when the lease expires, as before")
    func unkeyedOwnerByLease() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk))
            _ = try #require(try await store.claim(limit: 1, worker: "old-version", lease: .seconds(60)).first)
            #expect(try await store.rescueExpired(policy: Self.atOnce).isEmpty, "not before its lease ends")
            // The lease ends by the database's clock, not by how long this loaded machine sleeps:
            // a short lease ran out before the first rescue when the suite shared two cores.
            try await client.query("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(id)")
            let rescued = try await store.rescueExpired(policy: Self.atOnce)
            #expect(rescued.map(\.id) == [id])
            #expect(try await store.attempts(ofJob: id).map(\.outcome) == [.leaseExpired])
            await client.shutdown()
        }
    }
}
