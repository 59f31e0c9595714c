import Foundation
public import StenoCore
import StenoInfrastructure
public import StenoPostgres

extension JobStore {
    /// Claims up to `limit` claimable jobs for `worker`, shared fairly between tenants
    /// (`claimQuery`), skipping rows other workers are claiming. The attempt is recorded when it
    /// ends. Jobs that must run alone (`runs_alone`) are left to `claimAlone`.
    ///
    /// `mode` is what the worker's last heartbeat read of the tenants (`claimMode()`). With
    /// `.shared(exactCaps: true)` (some tenant has a cap on chunk jobs in flight) the claim holds
    /// the lock of each capped tenant whose chunk jobs it may take (`TenantSettings.capLockNamespace`),
    /// in one transaction with the claim: concurrent claims then count each other's jobs, and a
    /// cap holds fleet-wide. A mode a heartbeat old (a tenant added, a cap set since) holds for
    /// that long.
    ///
    /// The locks are tried, not waited for: a capped tenant whose lock another claim holds gives
    /// this claim none of its chunk jobs, and the claim goes on with everyone else's, so one cap
    /// never serialises the fleet's claims. Only a claim that found nothing else waits for those
    /// locks (`capLocks(waiting:)`) and tries again, so that an empty answer still means an empty
    /// queue.
    public func claim(limit: Int, worker: String, lease: Duration, kinds: [JobKind]? = nil, mode: ClaimMode = .unknown) async throws -> [Job] {
        try await client.withConnection { [time] connection in
            guard case .shared(exactCaps: true) = mode, kinds?.contains(.chunk) ?? true else {
                return try await Self.claim(limit: limit, worker: worker, lease: lease, kinds: kinds, mode: mode, now: time.now, on: connection)
            }
            let first = try await connection.withTransaction { connection in
                let caps = try await Self.capLocks(waiting: false, alone: false, now: time.now, on: connection)
                let claimed = try await Self.claim(
                    limit: limit, worker: worker, lease: lease, kinds: kinds, mode: mode, lockedCaps: caps.locked, now: time.now, on: connection)
                return (claimed, caps.missed.isEmpty)
            }
            if !first.0.isEmpty || first.1 { return first.0 }
            return try await connection.withTransaction { connection in
                let caps = try await Self.capLocks(waiting: true, alone: false, now: time.now, on: connection)
                return try await Self.claim(
                    limit: limit, worker: worker, lease: lease, kinds: kinds, mode: mode, lockedCaps: caps.locked, now: time.now, on: connection)
            }
        }
    }

    /// The cap locks of the capped tenants with chunk jobs ready to claim (those that run alone
    /// with `alone`), taken for the rest of the transaction: `locked` holds the tenants whose
    /// lock this transaction holds, `missed` those another claim held (`waiting: false` only).
    /// Waiting, they are taken in name order, so that two claims never wait for each other in
    /// a cycle; a transaction that waits holds no lock it only tried. Advisory locks, not row
    /// locks: a row lock needs the UPDATE privilege on `tenants`, which a worker's role does not
    /// have. The statement that follows in the transaction starts after the locks are held, so
    /// its snapshot counts every job claimed under them before.
    static func capLocks(
        waiting: Bool, alone: Bool, now: PostgresQuery, on connection: PostgresConnection
    ) async throws -> (locked: [String], missed: [String]) {
        let take: PostgresQuery = waiting
            ? "pg_advisory_xact_lock(\(TenantSettings.capLockNamespace), hashtext(name)) IS NOT NULL"
            : "pg_try_advisory_xact_lock(\(TenantSettings.capLockNamespace), hashtext(name))"
        let rows = try await connection.query(
            """
            WITH capped AS MATERIALIZED (
                SELECT t.name FROM tenants t
                WHERE t.max_in_flight IS NOT NULL
                  AND EXISTS (SELECT 1 FROM jobs q
                              WHERE q.tenant = t.name AND q.state = \(literal: JobState.queued) AND q.runs_alone = \(alone)
                                AND q.kind = \(literal: JobKind.chunk) AND q.run_at <= \(now))
                ORDER BY t.name)
            SELECT name, \(take) AS locked FROM capped ORDER BY name
            """)
        var locked: [String] = []
        var missed: [String] = []
        for row in rows {
            let name: String = try row.decode("name")
            if try row.decode("locked", as: Bool.self) { locked.append(name) } else { missed.append(name) }
        }
        return (locked, missed)
    }

    /// How claims should hand jobs out now, from one read of `tenants` (`ClaimMode.decide`).
    public func claimMode() async throws -> ClaimMode {
        try Self.claimMode(try await client.query("SELECT * FROM \(Self.tenantsForClaimMode)").single())
    }

    /// The one row `claimMode(_:)` reads: how many tenants have queued jobs (`tenants`: 0, 1,
    /// or 2 for more; found by skipping through `jobs_tenant_claim_idx`, two probes at most), the
    /// first of them, and whether any tenant has a cap or a budget. With no queued jobs at all, the
    /// rows of `tenants` stand in (one row: its own order for the next enqueue). The worker's
    /// heartbeat reads it in its own statement. Index reads only (the primary key,
    /// `tenants_capped_idx`, `tenants_budgeted_idx`): every heartbeat reads it, and `tenants` has a
    /// row per API key's tenant, most of them idle; a fleet of 100,000 tenants of which one has
    /// work claims in that tenant's own order.
    static let tenantsForClaimMode: PostgresQuery = """
        (\(queuedTenants(chunks: true)), busy AS (
             SELECT name FROM queued_tenants WHERE name IS NOT NULL LIMIT 2
         )
         SELECT CASE WHEN EXISTS (SELECT 1 FROM busy) THEN (SELECT count(*) FROM busy)
                     ELSE (SELECT count(*) FROM (SELECT name FROM tenants ORDER BY name LIMIT 2) AS two) END::integer AS tenants,
                coalesce((SELECT min(name) FROM busy), (SELECT min(name) FROM tenants)) AS first_tenant,
                EXISTS (SELECT 1 FROM tenants WHERE max_in_flight IS NOT NULL) AS any_cap,
                EXISTS (SELECT 1 FROM tenants
                        WHERE num_nonnulls(daily_audio_hours, monthly_audio_hours, daily_cost_usd, monthly_cost_usd) > 0) AS any_budget
        ) AS tenant_rules
        """

    /// The mode a row with the columns of `tenantsForClaimMode` asks for.
    static func claimMode(_ row: PostgresRow) throws -> ClaimMode {
        ClaimMode.decide(
            tenants: try row.decode("tenants"), first: try row.decode("first_tenant"), anyCap: try row.decode("any_cap"),
            anyBudget: try row.decode("any_budget"))
    }

    /// Claims one job that must run alone (it was running when its worker died twice), for a
    /// worker that runs nothing else and then claims nothing beside it. It reads the small
    /// partial index of such jobs (`jobs_alone_idx`, migration 0012): nearly free when there is none.
    /// A chunk job runs alone only within its tenant's budgets and cap, as any chunk job: the
    /// locks of the capped tenants with such jobs are waited for first (`capLocks(waiting:)`).
    public func claimAlone(worker: String, lease: Duration, kinds: [JobKind]? = nil) async throws -> Job? {
        try await client.withConnection { [time] connection in
            try await connection.withTransaction { connection in
                let caps = try await Self.capLocks(waiting: true, alone: true, now: time.now, on: connection)
                return try await Self.claim(
                    limit: 1, worker: worker, lease: lease, kinds: kinds, alone: true, lockedCaps: caps.locked, now: time.now, on: connection
                ).first
            }
        }
    }

    /// `claim(limit:worker:lease:kinds:)` on `connection`; with `alone`, the jobs that must run alone.
    public static func claim(
        limit: Int, worker: String, lease: Duration, kinds: [JobKind]? = nil, alone: Bool = false, mode: ClaimMode = .unknown,
        lockedCaps: [String]? = nil, now: PostgresQuery = StatementTime.database.now, on connection: PostgresConnection
    ) async throws -> [Job] {
        let rows = try await connection.query(
            claimQuery(limit: limit, worker: worker, lease: lease, kinds: kinds, alone: alone, mode: mode, lockedCaps: lockedCaps, now: now))
        return try rows.map(Job.init(row:)).sorted { first, second in
            if first.priority != second.priority { return first.priority.rawValue > second.priority.rawValue }
            if first.runAt != second.runAt { return first.runAt < second.runAt }
            return first.id < second.id
        }
    }

    /// `WITH RECURSIVE queued_tenants(name)`: the tenants with queued jobs that may run beside
    /// others, one index probe each, skipping from one tenant to the next (a loose index scan of
    /// `jobs_tenant_claim_idx`); the last row's name is NULL. Without `chunks`, the tenants with
    /// queued jobs of the other kinds, from `jobs_tenant_claim_other_idx`, whose predicate the
    /// text names: a tenant with only chunk jobs queued is not even visited.
    static func queuedTenants(chunks: Bool) -> PostgresQuery {
        let kinds: PostgresQuery = chunks ? "" : "AND q.kind <> \(literal: JobKind.chunk)"
        return """
            WITH RECURSIVE queued_tenants(name) AS (
                (SELECT q.tenant FROM jobs q
                 WHERE q.state = \(literal: JobState.queued) AND NOT q.runs_alone \(kinds)
                 ORDER BY q.tenant LIMIT 1)
                UNION ALL
                SELECT (SELECT q.tenant FROM jobs q
                        WHERE q.state = \(literal: JobState.queued) AND NOT q.runs_alone \(kinds) AND q.tenant > p.name
                        ORDER BY q.tenant LIMIT 1)
                FROM queued_tenants p WHERE p.name IS NOT NULL
            )
            """
    }

    /// The claim statement.
    ///
    /// **Across tenants**, the jobs go to the tenants with the fewest jobs in flight for their
    /// share: a tenant's `n`-th candidate ranks at `(running + n) / share`, so every claim
    /// moves the fleet towards jobs in flight in proportion to the shares of the tenants with
    /// work ready (start-time fair queueing over slots). Priority does not cross tenants: a
    /// tenant that marks everything high gains nothing over its share.
    /// **Inside a tenant**, by priority, then `fair_key` (media interleave: migration 0019),
    /// `run_at` and id, read from the tenant's index in order (`jobs_tenant_claim_idx`).
    /// A tenant at its cap of chunk jobs in flight, or over a budget (`steno_over_budget`),
    /// gets only its other kinds, read from `jobs_tenant_claim_other_idx`.
    ///
    /// **Caps**: with `lockedCaps`, a capped tenant's chunk jobs are taken only when it is
    /// among them (the claim holds its lock: `capLocks(waiting:)`); without, every cap is read
    /// as it stands, which concurrent claims can overrun by their number.
    ///
    /// The cost is one short index read per tenant with queued jobs: the tenants are found by
    /// skipping through `jobs_tenant_claim_idx` from one tenant to the next (a loose index scan),
    /// so the tenants without work (every API key's tenant has a row, and none is removed) cost
    /// nothing. And one count of the jobs in flight by tenant, from `jobs_running_idx`.
    public static func claimQuery(
        limit: Int, worker: String, lease: Duration, kinds: [JobKind]? = nil, alone: Bool = false, mode: ClaimMode = .unknown,
        lockedCaps: [String]? = nil, now: PostgresQuery = StatementTime.database.now
    ) -> PostgresQuery {
        precondition(limit > 0, "claim at least one job")
        // The limit is part of the text (one prepared statement per limit, at most the worker's
        // concurrency), and the claimed ids are collected with `= ANY(ARRAY(...))`: PostgreSQL
        // then keeps one generic plan per statement. With the limit as a parameter it planned
        // the claim again on every call, and a generic plan of `IN (...)` joined by scanning the
        // table.
        //
        // The claim commits without waiting for its WAL to reach disk (`synchronous_commit` off
        // for its own transaction only): a claim lost in a server crash leaves the job queued,
        // to be claimed again, and the lease fence keeps the first claimant from writing. Every
        // end of an attempt still waits for its flush.
        let update: PostgresQuery = """
            UPDATE jobs j
            SET state = \(literal: JobState.running), attempt = j.attempt + 1, lease_owner = \(worker),
                lease_expires_at = \(now) + make_interval(secs => \(lease.seconds)::float8),
                started_at = \(now), updated_at = \(now)
            FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit(setting)
            """
        let only: PostgresQuery = kinds.map { "AND q.kind = ANY(\($0.map(\.rawValue))::text[])" } ?? ""
        // True where a capped tenant's lock is another claim's: its chunk jobs wait.
        let capHeld: PostgresQuery = lockedCaps.map { "NOT (t.name = ANY(\($0)::text[]))" } ?? "false"
        if alone {
            return """
                \(update)
                WHERE j.id = ANY(ARRAY(
                    SELECT id FROM jobs q
                    WHERE state = \(literal: JobState.queued) AND run_at <= \(now) AND runs_alone \(only)
                      -- A chunk job is paid for: not past its tenant's budget or cap.
                      AND (q.kind <> \(literal: JobKind.chunk) OR NOT EXISTS (
                          SELECT 1 FROM tenants t
                          WHERE t.name = q.tenant
                            AND ((num_nonnulls(t.daily_audio_hours, t.monthly_audio_hours, t.daily_cost_usd, t.monthly_cost_usd) > 0
                                  AND steno_over_budget(t.name, \(now)) IS NOT NULL)
                                 OR (t.max_in_flight IS NOT NULL
                                     AND (\(capHeld) OR (SELECT count(*) FROM jobs r
                                          WHERE r.state = \(literal: JobState.running) AND r.kind = \(literal: JobKind.chunk) AND r.tenant = t.name)
                                         >= t.max_in_flight)))))
                    ORDER BY priority DESC, run_at, id
                    LIMIT \(literal: limit)
                    FOR UPDATE SKIP LOCKED))
                RETURNING \(Job.columns)
                """
        }
        let withChunks = kinds?.contains(.chunk) ?? true
        if case .oneTenant(let tenant) = mode {
            // The tenant's own order, from its index; without chunk jobs, from the index of the
            // other kinds, whose predicate the text names.
            let others: PostgresQuery = withChunks ? "" : "AND q.kind <> \(literal: JobKind.chunk)"
            return """
                \(update)
                WHERE j.id = ANY(ARRAY(
                    SELECT id FROM jobs q
                    WHERE q.tenant = \(tenant) AND q.state = \(literal: JobState.queued) AND NOT q.runs_alone \(others)
                      AND q.run_at <= \(now) \(only)
                    ORDER BY q.priority DESC, q.fair_key, q.run_at, q.id
                    LIMIT \(literal: limit)
                    FOR UPDATE SKIP LOCKED))
                RETURNING \(Job.columns)
                """
        }
        // Each branch names its partial index's predicate in its text, so that the prepared
        // plan reads that index in order; the branch's condition on the tenant is a one-time
        // filter, so a tenant at its cap never walks its queued chunk jobs.
        let allKinds: PostgresQuery = """
            SELECT q.id, q.kind, q.priority, q.fair_key, q.run_at FROM jobs q
            WHERE t.chunks_allowed AND q.tenant = t.name AND q.state = \(literal: JobState.queued) AND NOT q.runs_alone
              AND q.run_at <= \(now) \(only)
            ORDER BY q.priority DESC, q.fair_key, q.run_at, q.id
            LIMIT \(literal: limit)
            FOR UPDATE SKIP LOCKED
            """
        let gate: PostgresQuery = withChunks ? "NOT t.chunks_allowed AND" : ""
        let otherKinds: PostgresQuery = """
            SELECT q.id, q.kind, q.priority, q.fair_key, q.run_at FROM jobs q
            WHERE \(gate) q.tenant = t.name AND q.state = \(literal: JobState.queued)
              AND NOT q.runs_alone AND q.kind <> \(literal: JobKind.chunk) AND q.run_at <= \(now) \(only)
            ORDER BY q.priority DESC, q.fair_key, q.run_at, q.id
            LIMIT \(literal: limit)
            FOR UPDATE SKIP LOCKED
            """
        // A locking clause may not stand on an input of UNION; on a subquery of one it may.
        let candidates: PostgresQuery =
            withChunks ? "SELECT * FROM (\(allKinds)) a UNION ALL SELECT * FROM (\(otherKinds)) b" : otherKinds
        return """
            \(update)
            WHERE j.id = ANY(ARRAY(
                \(queuedTenants(chunks: withChunks))
                SELECT id FROM (
                    SELECT c.id, c.kind, t.running, t.share, t.chunk_room,
                           row_number() OVER (PARTITION BY t.name ORDER BY c.priority DESC, c.fair_key, c.run_at, c.id) AS n,
                           count(*) FILTER (WHERE c.kind = \(literal: JobKind.chunk))
                               OVER (PARTITION BY t.name ORDER BY c.priority DESC, c.fair_key, c.run_at, c.id) AS chunk_n
                    FROM (
                        SELECT t.name, t.share, r.running, t.max_in_flight - r.running_chunks AS chunk_room,
                               (t.max_in_flight IS NULL OR (NOT \(capHeld) AND r.running_chunks < t.max_in_flight))
                               AND (num_nonnulls(t.daily_audio_hours, t.monthly_audio_hours, t.daily_cost_usd, t.monthly_cost_usd) = 0
                                    OR steno_over_budget(t.name, \(now)) IS NULL) AS chunks_allowed
                        FROM queued_tenants a
                        JOIN tenants t ON t.name = a.name
                        LEFT JOIN (
                            SELECT tenant, count(*) AS running, count(*) FILTER (WHERE kind = \(literal: JobKind.chunk)) AS running_chunks
                            FROM jobs
                            WHERE state = \(literal: JobState.running)
                            GROUP BY tenant
                        ) counted ON counted.tenant = t.name
                        CROSS JOIN LATERAL (
                            SELECT coalesce(counted.running, 0) AS running, coalesce(counted.running_chunks, 0) AS running_chunks
                        ) r
                    ) t
                    CROSS JOIN LATERAL (\(candidates)) c
                ) ranked
                WHERE kind <> \(literal: JobKind.chunk) OR chunk_room IS NULL OR chunk_n <= chunk_room
                ORDER BY (running + n)::float8 / share, id
                LIMIT \(literal: limit)))
            RETURNING \(Job.columns)
            """
    }

    /// What a heartbeat learned about one lease.
    public enum HeartbeatResult: Sendable, Equatable {
        /// The lease was extended; `cancelRequested` says whether to stop.
        case held(cancelRequested: Bool)
        /// The job was rescued, finished or claimed by another worker: drop the work, write nothing.
        case lost
    }

    /// Extends the leases by `lease` from now and reads their cancel flags, in one statement for
    /// all of them. It changes no indexed column, so PostgreSQL updates each row in place (HOT).
    public func heartbeat(_ leases: [JobLease], extendBy lease: Duration) async throws -> [JobLease: HeartbeatResult] {
        guard !leases.isEmpty else { return [:] }
        var results = Dictionary(uniqueKeysWithValues: leases.map { ($0, HeartbeatResult.lost) })
        let now = time.now
        let rows = try await client.query(
            """
            UPDATE jobs j
            SET lease_expires_at = \(now) + make_interval(secs => \(lease.seconds)::float8), updated_at = \(now)
            FROM \(Self.held(leases))
            WHERE \(Self.leaseFence)
            RETURNING j.id, j.attempt, held.owner, j.cancel_requested
            """)
        for row in rows {
            let held = JobLease(jobID: try row.decode("id"), owner: try row.decode("owner"), attempt: try row.decode("attempt"))
            results[held] = .held(cancelRequested: try row.decode("cancel_requested"))
        }
        return results
    }
}
