import Foundation
import StenoCore

extension JobStore {
    /// Claims up to `limit` claimable jobs for `worker`, highest priority first, then by `run_at`
    /// and id, skipping rows other workers are claiming. Records a started attempt for each.
    public func claim(limit: Int, worker: String, lease: Duration, kinds: [JobKind]? = nil) async throws -> [Job] {
        precondition(limit > 0, "claim at least one job")
        let rows = try await client.query(
            """
            WITH next AS (
                SELECT id FROM jobs
                WHERE state = 'queued' AND run_at <= now()
                  AND ($4::text[] IS NULL OR kind = ANY($4::text[]))
                ORDER BY priority DESC, run_at, id
                LIMIT $1
                FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE jobs j
                SET state = 'running', attempt = j.attempt + 1, lease_owner = $2,
                    lease_expires_at = now() + make_interval(secs => $3::float8),
                    started_at = now(), updated_at = now()
                FROM next
                WHERE j.id = next.id
                RETURNING j.*
            ), recorded AS (
                INSERT INTO job_attempts (job_id, attempt, worker)
                SELECT id, attempt, $2 FROM claimed
            )
            SELECT * FROM claimed ORDER BY priority DESC, run_at, id
            """,
            [limit, worker, lease.seconds, kinds.map { $0.map(\.rawValue) }])
        return try rows.map(Job.init(row:))
    }

    /// What a heartbeat learned about one lease.
    public enum HeartbeatResult: Sendable, Equatable {
        /// The lease was extended; `cancelRequested` says whether to stop.
        case held(cancelRequested: Bool)
        /// The job was rescued, finished or claimed by another worker: drop the work, write nothing.
        case lost
    }

    /// Extends the leases of `worker`'s jobs by `lease` from now and reads their cancel flags,
    /// in one statement for all of them.
    public func heartbeat(_ leases: [JobLease], extendBy lease: Duration) async throws -> [JobLease: HeartbeatResult] {
        guard !leases.isEmpty else { return [:] }
        var results = Dictionary(uniqueKeysWithValues: leases.map { ($0, HeartbeatResult.lost) })
        for (owner, group) in Dictionary(grouping: leases, by: \.owner) {
            let rows = try await client.query(
                """
                UPDATE jobs j
                SET lease_expires_at = now() + make_interval(secs => $4::float8), updated_at = now()
                FROM unnest($1::bigint[], $2::integer[]) AS held(id, attempt)
                WHERE j.id = held.id AND j.attempt = held.attempt AND j.lease_owner = $3 AND j.state = 'running'
                RETURNING j.id, j.attempt, j.cancel_requested
                """,
                [group.map(\.jobID), group.map(\.attempt), owner, lease.seconds])
            for row in rows {
                let held = JobLease(jobID: try row.decode("id"), owner: owner, attempt: try row.decode("attempt"))
                results[held] = .held(cancelRequested: try row.decode("cancel_requested"))
            }
        }
        return results
    }
}
