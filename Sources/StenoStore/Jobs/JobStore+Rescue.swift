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
            (SELECT j.id, j.attempt, j.lease_owner AS owner
             FROM jobs j JOIN workers w ON w.id = j.lease_owner
             WHERE j.state = \(literal: JobState.running) AND \(spared) AND \(deadOwner(policy, now: now))
             ORDER BY j.id
             LIMIT \(limit)
             FOR UPDATE OF j SKIP LOCKED) AS held
            """
        let death = AttemptEnd.workerDied(budget: policy.crashBudget)
        let died = try endedJobs(try await connection.query(statement(ending: death, held: orphaned, now: now)))
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
        return (died.map { ($0, death) } + lapsed.map { ($0, AttemptEnd.leaseExpired) }).sorted { $0.job.id < $1.job.id }
    }

    /// The liveness keys whose advisory lock a session of this database holds: the workers whose
    /// process lives (`pg_locks`; PostgreSQL frees a session's locks the moment it ends).
    static let liveKeys: PostgresQuery = """
        SELECT l.objid FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.classid = \(Int64(RescuePolicy.lockNamespace))::bigint::oid AND l.objsubid = 2
          AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        """

    /// Whether the worker row `w` holds its liveness lock: a SQL condition.
    static let aliveOwner: PostgresQuery =
        "(w.liveness_key IS NOT NULL AND w.liveness_key::bigint::oid IN (\(liveKeys)))"

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

    /// Whether the worker row `w` is a process that died: no session holds its liveness lock, and
    /// that proves it (`lockLossProves`).
    static func deadOwner(_ policy: RescuePolicy, now: PostgresQuery = StatementTime.database.now) -> PostgresQuery {
        "(NOT \(aliveOwner) AND \(lockLossProves(policy, now: now)))"
    }

    /// What the listening session of worker `id` runs each time it took its liveness lock.
    public static func lockTaken(worker id: String) -> PostgresQuery {
        "UPDATE workers SET liveness_locked_at = now() WHERE id = \(id)"
    }
}
