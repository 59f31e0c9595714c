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
            #expect(job.errorMessage == "the process of worker doomed died while running it")
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
            let lease = try #require(try await store.claim(limit: 1, worker: "paused", lease: .milliseconds(100)).first?.lease)
            clock.advance(by: .milliseconds(300))

            #expect(try await store.rescueExpired(policy: Self.atOnce).isEmpty, "SIGSTOP longer than the lease: the job stays")
            let due = try await WorkStore(client: client).heartbeatWorker(
                workerID: "another", status: .running, message: nil, jobsInFlight: 0, pausedBackends: [:], rescue: Self.atOnce
            ).due
            #expect(due.leaseExpiresIn == nil, "no rescue is due for a live worker's lease")
            #expect(!due.ownersDied)
            let hungIn = try #require(due.hungIn)
            // The hang limit less the time since the worker's last beat, as the database counted
            // it when the heartbeat ran: no more than the limit, and no less than what is left of
            // it now, read afterwards on the same clock.
            let sinceBeat: Double = try await client.query(
                "SELECT extract(epoch FROM now() - last_heartbeat_at)::float8 AS since FROM workers WHERE id = 'paused'"
            ).single().decode("since")
            #expect(hungIn <= 300 && hungIn >= 300 - sinceBeat.rounded(.up) - 1, "\(hungIn) s left, \(sinceBeat) s since the beat")

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

    @Test("a job running each time its worker died runs alone after two deaths, and fails with a reason at the budget")
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
            }
            let job = try #require(try await store.job(poison))
            #expect(job.state == .failed)
            #expect(job.crashRescues == 4)
            #expect(job.errorMessage?.contains("each of the 4 times its worker's process died") == true, "\(job.errorMessage ?? "")")
            #expect(try await store.attempts(ofJob: poison).map(\.outcome) == Array(repeating: .workerDied, count: 4))
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
