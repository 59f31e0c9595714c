import Foundation
public import StenoCore
import StenoInfrastructure
public import StenoPostgres

extension JobStore {
    /// Takes back running jobs whose worker is gone (`RescuePolicy`): at once when the worker's
    /// process died (its liveness lock is free), queued again with the attempt given back
    /// (`AttemptEnd.workerDied`); once the lease expired when the worker holds no liveness lock
    /// (a worker from before migration 0012, or just after a database restart), or when it
    /// holds one but its heartbeat is older than the hang limit (`AttemptEnd.leaseExpired`,
    /// which charges the attempt). Any worker may call it; concurrent callers skip each other's
    /// rows. The worker's rescue runs it in a transaction with what the rescued jobs' chunks,
    /// chapters and media become (`WorkStore.rescueExpired`).
    public func rescueExpired(
        limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = [], policy: RescuePolicy = RescuePolicy()
    ) async throws -> [EndedJob] {
        try await client.withTransaction { [time] in
            try await Self.rescueExpired(limit: limit, sparing: owner, running: running, policy: policy, now: time.now, on: $0)
        }
    }

    /// The jobs `owner` is still `running` are spared: a live worker whose heartbeat ran late must
    /// not take back the jobs it is still running. Its own jobs that it no longer runs (it could
    /// not record how one ended) it takes back once their lease expired: in a fleet of one,
    /// nobody else would. Two statements: the dead workers' jobs first, then expired leases.
    public static func rescueExpired(
        limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = [], policy: RescuePolicy = RescuePolicy(),
        now: PostgresQuery = StatementTime.database.now, on connection: PostgresConnection
    ) async throws -> [EndedJob] {
        try await rescues(limit: limit, sparing: owner, running: running, policy: policy, now: now, on: connection).map(\.job)
    }

    /// Each rescued job with the end that took it back, for what its chunk, chapter and media follow.
    static func rescues(
        limit: Int, sparing owner: String?, running: [Int64], policy: RescuePolicy, now: PostgresQuery = StatementTime.database.now,
        on connection: PostgresConnection
    ) async throws -> [(job: EndedJob, end: AttemptEnd)] {
        let spared: PostgresQuery = "NOT (j.lease_owner = \(owner)::text AND j.id = ANY(\(running)::bigint[]))"
        let orphaned: PostgresQuery = """
            SELECT j.id, j.attempt, j.lease_owner AS owner
            FROM jobs j JOIN workers w ON w.id = j.lease_owner
            WHERE j.state = \(literal: JobState.running) AND \(spared) AND \(deadOwner(policy, now: now))
            ORDER BY j.id
            LIMIT \(limit)
            FOR UPDATE OF j SKIP LOCKED
            """
        let died = try await endDeaths(held: orphaned, exit: nil, policy: policy, now: now, on: connection)
        let expired: PostgresQuery = """
            (SELECT j.id, j.attempt, j.lease_owner AS owner
             FROM jobs j LEFT JOIN workers w ON w.id = j.lease_owner
             WHERE j.state = \(literal: JobState.running) AND j.lease_expires_at < \(now) AND \(spared)
               AND (NOT \(aliveOwner) OR j.lease_owner = \(owner)::text
                    OR w.last_heartbeat_at < \(now) - make_interval(secs => \(policy.hangLimit.seconds)::float8))
             ORDER BY j.lease_expires_at
             LIMIT \(limit)
             FOR UPDATE OF j SKIP LOCKED) AS held
            """
        let lapsed = try endedJobs(try await connection.query(statement(ending: .leaseExpired, held: expired, now: now)))
        return (died + lapsed.map { ($0, AttemptEnd.leaseExpired) }).sorted { $0.job.id < $1.job.id }
    }

    /// Ends the attempts `held` selects and locks (`id, attempt, owner`), whose worker's process
    /// died as `exit` says (nil: nobody saw how), each as the verdict on its evidence says
    /// (`DeathVerdict`): its earlier deaths and running time from `job_attempts`, and the fleet's
    /// death rate over `RescuePolicy.deathWindow` and how many other jobs ran in it, read in the
    /// same statement that locks it.
    static func endDeaths(
        held: PostgresQuery, exit: WorkerExit?, policy: RescuePolicy, now: PostgresQuery, on connection: PostgresConnection
    ) async throws -> [(job: EndedJob, end: AttemptEnd)] {
        let rows = try await connection.query(
            """
            WITH held AS MATERIALIZED (\(held)),
            since AS (SELECT \(now) - make_interval(secs => \(RescuePolicy.deathWindow.seconds)::float8) AS at),
            fleet AS (
                SELECT count(*) FILTER (WHERE a.outcome = \(literal: JobAttempt.Outcome.workerDied) AND NOT a.crashed) AS deaths,
                       coalesce(sum(extract(epoch FROM a.finished_at - greatest(a.started_at, since.at))), 0)
                       + (SELECT coalesce(sum(extract(epoch FROM \(now) - greatest(r.started_at, since.at))), 0)
                          FROM jobs r WHERE r.state = \(literal: JobState.running) AND r.started_at IS NOT NULL) AS seconds
                FROM since LEFT JOIN job_attempts a ON a.finished_at > since.at
                GROUP BY since.at
            ),
            window_jobs AS (
                SELECT a.job_id AS id FROM job_attempts a, since WHERE a.finished_at > since.at
                UNION
                SELECT r.id FROM jobs r WHERE r.state = \(literal: JobState.running) AND r.started_at IS NOT NULL
            )
            SELECT held.id, held.attempt, held.owner, fleet.deaths::bigint AS fleet_deaths, fleet.seconds::float8 AS fleet_seconds,
                   (SELECT count(*) FROM window_jobs w WHERE w.id <> held.id)::bigint AS fleet_jobs,
                   coalesce(extract(epoch FROM \(now) - j.started_at), 0)::float8 AS running,
                   coalesce(extract(epoch FROM \(now) - greatest(j.started_at, since.at)), 0)::float8 AS running_in_window,
                   coalesce((SELECT sum(extract(epoch FROM a.finished_at - a.started_at)) FROM job_attempts a WHERE a.job_id = held.id), 0)::float8 AS ran,
                   coalesce((SELECT sum(extract(epoch FROM a.finished_at - greatest(a.started_at, since.at))) FROM job_attempts a
                             WHERE a.job_id = held.id AND a.finished_at > since.at), 0)::float8 AS ran_in_window,
                   (SELECT count(*) FROM job_attempts a WHERE a.job_id = held.id AND a.finished_at > since.at
                      AND a.outcome = \(literal: JobAttempt.Outcome.workerDied) AND NOT a.crashed)::bigint AS died_in_window,
                   coalesce((SELECT array_agg(coalesce(a.worker_exit, '') ORDER BY a.attempt) FROM job_attempts a
                             WHERE a.job_id = held.id AND a.outcome = \(literal: JobAttempt.Outcome.workerDied)), '{}') AS earlier,
                   coalesce((SELECT c.end_seconds - c.start_seconds FROM chunks c WHERE c.id = j.chunk_id AND j.kind = \(literal: JobKind.chunk)), 0)::float8
                       AS chunk_seconds
            FROM held JOIN jobs j ON j.id = held.id CROSS JOIN fleet CROSS JOIN since
            """)
        var judged: [(lease: JobLease, end: AttemptEnd)] = []
        for row in rows {
            let earlier: [String] = try row.decode("earlier")
            let running: Double = try row.decode("running")
            let ranInWindow: Double = try row.decode("ran_in_window")
            let runningInWindow: Double = try row.decode("running_in_window")
            let fleetDeaths = Int(try row.decode("fleet_deaths", as: Int64.self)) - Int(try row.decode("died_in_window", as: Int64.self))
            let fleetSeconds = try row.decode("fleet_seconds", as: Double.self) - ranInWindow - runningInWindow
            let record = DeathRecord(
                exit: exit, earlier: earlier.map { $0.isEmpty ? nil : WorkerExit($0) },
                seconds: try row.decode("ran", as: Double.self) + running,
                fleetDeaths: max(0, fleetDeaths), fleetSeconds: max(0, fleetSeconds),
                fleetJobs: Int(try row.decode("fleet_jobs", as: Int64.self)),
                canShrink: RescuePolicy.canShrink(chunkSeconds: try row.decode("chunk_seconds")))
            let lease = JobLease(jobID: try row.decode("id"), owner: try row.decode("owner"), attempt: try row.decode("attempt"))
            judged.append((lease, .workerDied(DeathVerdict.judge(record, policy: policy), exit: exit)))
        }
        var ended: [(job: EndedJob, end: AttemptEnd)] = []
        var remaining = judged
        while let first = remaining.first {
            let same = remaining.filter { $0.end == first.end }
            remaining.removeAll { $0.end == first.end }
            let jobs = try endedJobs(try await connection.query(statement(ending: first.end, held: Self.held(same.map(\.lease)), now: now)))
            ended += jobs.map { ($0, first.end) }
        }
        return ended
    }

    /// The keys of `namespace` whose advisory lock a session of this database holds: the workers
    /// (or supervisors) whose process lives (`pg_locks`; PostgreSQL frees a session's locks the
    /// moment it ends).
    static func liveKeys(_ namespace: Int32) -> PostgresQuery {
        """
        SELECT l.objid FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.classid = \(Int64(namespace))::bigint::oid AND l.objsubid = 2
          AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        """
    }

    /// Whether the worker row `w` holds its liveness lock: a SQL condition.
    static let aliveOwner: PostgresQuery =
        "(w.liveness_key IS NOT NULL AND w.liveness_key::bigint::oid IN (\(liveKeys(RescuePolicy.lockNamespace))))"

    /// Whether the worker row `w` has a supervisor whose process lives: it takes the worker's
    /// jobs back itself when the worker dies, with the evidence of how it ended.
    static let aliveSupervisor: PostgresQuery =
        "(w.supervisor_key IS NOT NULL AND w.supervisor_key::bigint::oid IN (\(liveKeys(RescuePolicy.supervisorNamespace))))"

    /// Whether a missing lock of the worker row `w` would prove its process dead: it had taken the
    /// lock on this server (after the server started), or the server has been up long enough for
    /// a live worker to have taken it again.
    static func lockLossProves(_ policy: RescuePolicy, now: PostgresQuery = StatementTime.database.now) -> PostgresQuery {
        """
        (w.liveness_key IS NOT NULL
         AND (w.liveness_locked_at > pg_postmaster_start_time()
              OR pg_postmaster_start_time() < \(now) - make_interval(secs => \(policy.startGrace.seconds)::float8)))
        """
    }

    /// Whether the worker row `w` is a process that died and whose jobs are the fleet's to take
    /// back: no session holds its liveness lock, that proves it (`lockLossProves`), and no live
    /// supervisor of its own will take them back with better evidence.
    static func deadOwner(_ policy: RescuePolicy, now: PostgresQuery = StatementTime.database.now) -> PostgresQuery {
        "(NOT \(aliveOwner) AND \(fleetTakesIfDead(policy, now: now)))"
    }

    /// Whether the fleet takes the jobs of the worker row `w` once its lock is gone: the loss
    /// proves the death (`lockLossProves`), and no live supervisor of its own takes them back.
    static func fleetTakesIfDead(_ policy: RescuePolicy, now: PostgresQuery = StatementTime.database.now) -> PostgresQuery {
        "(\(lockLossProves(policy, now: now)) AND NOT \(aliveSupervisor))"
    }

    /// What the listening session of worker `id` runs each time it took its liveness lock.
    public static func lockTaken(worker id: String) -> PostgresQuery {
        "UPDATE workers SET liveness_locked_at = now() WHERE id = \(id)"
    }
}
