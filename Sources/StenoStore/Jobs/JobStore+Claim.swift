import Foundation
public import StenoCore
import StenoInfrastructure
public import StenoPostgres

extension JobStore {
    /// Claims up to `limit` claimable jobs for `worker`, highest priority first, then by `run_at`
    /// and id, skipping rows other workers are claiming. The attempt is recorded when it ends.
    /// Jobs that must run alone (`runs_alone`) are left to `claimAlone`.
    public func claim(limit: Int, worker: String, lease: Duration, kinds: [JobKind]? = nil) async throws -> [Job] {
        try await client.withConnection { [time] in
            try await Self.claim(limit: limit, worker: worker, lease: lease, kinds: kinds, now: time.now, on: $0)
        }
    }

    /// Claims one job that must run alone (it was running when its worker died twice), for a
    /// worker that runs nothing else and then claims nothing beside it. It reads the small
    /// partial index of such jobs (`jobs_alone_idx`, migration 0012): nearly free when there is none.
    public func claimAlone(worker: String, lease: Duration, kinds: [JobKind]? = nil) async throws -> Job? {
        try await client.withConnection { [time] in
            try await Self.claim(limit: 1, worker: worker, lease: lease, kinds: kinds, alone: true, now: time.now, on: $0).first
        }
    }

    /// `claim(limit:worker:lease:kinds:)` on `connection`; with `alone`, the jobs that must run alone.
    public static func claim(
        limit: Int, worker: String, lease: Duration, kinds: [JobKind]? = nil, alone: Bool = false,
        now: PostgresQuery = StatementTime.database.now, on connection: PostgresConnection
    ) async throws -> [Job] {
        precondition(limit > 0, "claim at least one job")
        // Two statement texts rather than `kinds IS NULL OR ...`, so that each prepared plan
        // reads the claim index in order with no condition it cannot use. The limit is part of
        // the text (one prepared statement per limit, at most the worker's concurrency), and
        // the claimed ids are collected with `= ANY(ARRAY(...))`: PostgreSQL then keeps one
        // generic plan per statement. With the limit as a parameter it planned the claim again
        // on every call, and a generic plan of `IN (...)` joined by scanning the table.
        //
        // The claim commits without waiting for its WAL to reach disk (`synchronous_commit` off
        // for its own transaction only): a claim lost in a server crash leaves the job queued,
        // to be claimed again, and the lease fence keeps the first claimant from writing. Every
        // end of an attempt still waits for its flush.
        var only: PostgresQuery = kinds.map { "AND kind = ANY(\($0.map(\.rawValue))::text[])" } ?? ""
        // Without chunks (a paused or failing backend), the claim reads the partial index of
        // the other kinds (`jobs_claim_other_idx`, migration 0015), whose predicate the planner
        // must see in the text: in `jobs_claim_idx` it walked past every queued chunk job.
        if let kinds, !kinds.contains(.chunk) {
            only = "\(only) AND kind <> \(literal: JobKind.chunk)"
        }
        // A literal, not a parameter: each text keeps its own plan, on its own partial index.
        let which: PostgresQuery = alone ? "AND runs_alone" : "AND NOT runs_alone"
        let rows = try await connection.query(
            """
            UPDATE jobs j
            SET state = \(literal: JobState.running), attempt = j.attempt + 1, lease_owner = \(worker),
                lease_expires_at = \(now) + make_interval(secs => \(lease.seconds)::float8),
                started_at = \(now), updated_at = \(now)
            FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit(setting)
            WHERE j.id = ANY(ARRAY(
                SELECT id FROM jobs
                WHERE state = \(literal: JobState.queued) AND run_at <= \(now) \(which) \(only)
                ORDER BY priority DESC, run_at, id
                LIMIT \(literal: limit)
                FOR UPDATE SKIP LOCKED))
            RETURNING \(Job.columns)
            """)
        return try rows.map(Job.init(row:)).sorted { first, second in
            if first.priority != second.priority { return first.priority.rawValue > second.priority.rawValue }
            if first.runAt != second.runAt { return first.runAt < second.runAt }
            return first.id < second.id
        }
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
