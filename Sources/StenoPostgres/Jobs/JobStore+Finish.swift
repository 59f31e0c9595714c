import Foundation
import StenoCore

extension JobStore {
    /// Why an attempt ended, as recorded in `job_attempts`.
    public struct Failure: Sendable, Equatable {
        public var errorClass: FailureClass
        public var message: String
        public var httpStatus: Int?

        public init(_ errorClass: FailureClass, _ message: String, httpStatus: Int? = nil) {
            self.errorClass = errorClass
            self.message = message
            self.httpStatus = httpStatus
        }
    }

    /// Marks the jobs succeeded; returns the leases that still held (the others wrote nothing).
    @discardableResult
    public func complete(_ leases: [JobLease]) async throws -> Set<JobLease> {
        guard !leases.isEmpty else { return [] }
        var finished: Set<JobLease> = []
        for (owner, group) in Dictionary(grouping: leases, by: \.owner) {
            let rows = try await client.query(
                """
                WITH finished AS (
                    UPDATE jobs j
                    SET state = 'succeeded', lease_owner = NULL, lease_expires_at = NULL,
                        finished_at = now(), updated_at = now(), error_class = NULL, error_message = NULL
                    FROM unnest($1::bigint[], $2::integer[]) AS held(id, attempt)
                    WHERE j.id = held.id AND j.attempt = held.attempt AND j.lease_owner = $3 AND j.state = 'running'
                    RETURNING j.id, j.attempt
                ), recorded AS (
                    UPDATE job_attempts a SET finished_at = now(), outcome = 'succeeded'
                    FROM finished f WHERE a.job_id = f.id AND a.attempt = f.attempt
                )
                SELECT id, attempt FROM finished
                """,
                [group.map(\.jobID), group.map(\.attempt), owner])
            for row in rows {
                finished.insert(JobLease(jobID: try row.decode("id"), owner: owner, attempt: try row.decode("attempt")))
            }
        }
        return finished
    }

    /// Marks the job succeeded; `false` when the lease was lost and nothing was written.
    @discardableResult
    public func complete(_ lease: JobLease) async throws -> Bool {
        try await complete([lease]).contains(lease)
    }

    /// Fails the job for good (no further attempts); `false` when the lease was lost.
    @discardableResult
    public func fail(_ lease: JobLease, _ failure: Failure) async throws -> Bool {
        try await finish(lease, state: .failed, outcome: .failed, failure: failure)
    }

    /// Ends the job as cancelled, after the worker saw the cancel flag; `false` when the lease was lost.
    @discardableResult
    public func markCancelled(_ lease: JobLease, message: String = "cancelled by request") async throws -> Bool {
        try await finish(lease, state: .cancelled, outcome: .cancelled, failure: Failure(.cancelled, message))
    }

    /// What `retryLater` did with the job.
    public enum RetryDecision: Sendable, Equatable {
        /// Back in the queue, claimable from `runAt`.
        case requeued(runAt: Date)
        /// Out of attempts: failed for good.
        case failed
        /// The cancel flag was set meanwhile: cancelled.
        case cancelled
        /// The lease was lost; nothing was written.
        case leaseLost
    }

    /// Ends a transiently failed attempt: the job runs again after `delay` (on the database's clock),
    /// or fails once it has used `max_attempts`.
    public func retryLater(_ lease: JobLease, after delay: Duration, _ failure: Failure) async throws -> RetryDecision {
        let rows = try await client.query(
            """
            WITH decided AS (
                SELECT id,
                       CASE WHEN cancel_requested THEN 'cancelled'
                            WHEN attempt >= max_attempts THEN 'failed'
                            ELSE 'queued' END AS next_state
                FROM jobs
                WHERE id = $1 AND lease_owner = $2 AND attempt = $3 AND state = 'running'
                FOR UPDATE
            ), finished AS (
                UPDATE jobs j
                SET state = d.next_state, lease_owner = NULL, lease_expires_at = NULL,
                    run_at = CASE WHEN d.next_state = 'queued' THEN now() + make_interval(secs => $4::float8) ELSE j.run_at END,
                    finished_at = CASE WHEN d.next_state = 'queued' THEN NULL ELSE now() END,
                    updated_at = now(), error_class = $5, error_message = $6
                FROM decided d
                WHERE j.id = d.id
                RETURNING j.id, j.attempt, j.state, j.run_at
            ), recorded AS (
                UPDATE job_attempts a
                SET finished_at = now(), error_class = $5, message = $6, http_status = $7,
                    outcome = CASE f.state WHEN 'queued' THEN 'retry' WHEN 'cancelled' THEN 'cancelled' ELSE 'failed' END
                FROM finished f WHERE a.job_id = f.id AND a.attempt = f.attempt
            )
            SELECT state, run_at FROM finished
            """,
            [lease.jobID, lease.owner, lease.attempt, delay.seconds, failure.errorClass.rawValue, failure.message, failure.httpStatus])
        guard let row = rows.first else { return .leaseLost }
        switch try row.decode("state", as: JobState.self) {
        case .queued: return .requeued(runAt: try row.decode("run_at"))
        case .cancelled: return .cancelled
        default: return .failed
        }
    }

    /// Puts a job back in the queue until `runAt` without using up one of its attempts, because
    /// the failure was not the job's (its backend is down). `false` when the lease was lost.
    @discardableResult
    public func postpone(_ lease: JobLease, until runAt: Date, _ failure: Failure) async throws -> Bool {
        let rows = try await client.query(
            """
            WITH postponed AS (
                UPDATE jobs j
                SET state = CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'queued' END,
                    max_attempts = CASE WHEN j.cancel_requested THEN j.max_attempts ELSE j.max_attempts + 1 END,
                    finished_at = CASE WHEN j.cancel_requested THEN now() END,
                    lease_owner = NULL, lease_expires_at = NULL, run_at = $4, updated_at = now(),
                    error_class = $5, error_message = $6
                WHERE j.id = $1 AND j.lease_owner = $2 AND j.attempt = $3 AND j.state = 'running'
                RETURNING j.id, j.attempt
            ), recorded AS (
                UPDATE job_attempts a SET finished_at = now(), outcome = 'released', error_class = $5, message = $6
                FROM postponed p WHERE a.job_id = p.id AND a.attempt = p.attempt
            )
            SELECT id FROM postponed
            """,
            [lease.jobID, lease.owner, lease.attempt, runAt, failure.errorClass.rawValue, failure.message])
        return !rows.isEmpty
    }

    /// Hands running jobs back at shutdown: queued again at once, without using up one of the job's
    /// attempts (or cancelled, when the flag is set). Returns the leases that still held.
    @discardableResult
    public func release(_ leases: [JobLease]) async throws -> Set<JobLease> {
        guard !leases.isEmpty else { return [] }
        var released: Set<JobLease> = []
        for (owner, group) in Dictionary(grouping: leases, by: \.owner) {
            let rows = try await client.query(
                """
                WITH handed_back AS (
                    UPDATE jobs j
                    SET state = CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'queued' END,
                        -- Attempt numbers only grow (they fence stale writers), so the try is given back
                        -- by allowing one more instead.
                        max_attempts = CASE WHEN j.cancel_requested THEN j.max_attempts ELSE j.max_attempts + 1 END,
                        finished_at = CASE WHEN j.cancel_requested THEN now() END,
                        lease_owner = NULL, lease_expires_at = NULL, run_at = now(), updated_at = now()
                    FROM unnest($1::bigint[], $2::integer[]) AS held(id, attempt)
                    WHERE j.id = held.id AND j.attempt = held.attempt AND j.lease_owner = $3 AND j.state = 'running'
                    RETURNING j.id, held.attempt
                ), recorded AS (
                    UPDATE job_attempts a SET finished_at = now(), outcome = 'released', message = 'handed back at worker shutdown'
                    FROM handed_back h WHERE a.job_id = h.id AND a.attempt = h.attempt
                )
                SELECT id, attempt FROM handed_back
                """,
                [group.map(\.jobID), group.map(\.attempt), owner])
            for row in rows {
                released.insert(JobLease(jobID: try row.decode("id"), owner: owner, attempt: try row.decode("attempt")))
            }
        }
        return released
    }

    private func finish(_ lease: JobLease, state: JobState, outcome: JobAttempt.Outcome, failure: Failure) async throws -> Bool {
        try await client.withConnection { connection in
            try await Self.finish(lease, state: state, outcome: outcome, failure: failure, on: connection)
        }
    }

    /// Ends a running job for good and records its attempt, on `connection`, so that a caller can
    /// commit it in one transaction with its own writes. Fenced by the lease: `false` when it was
    /// lost, and then nothing was written.
    public static func finish(
        _ lease: JobLease, state: JobState, outcome: JobAttempt.Outcome, failure: Failure?, on connection: PostgresConnection
    ) async throws -> Bool {
        let rows = try await connection.query(
            """
            WITH finished AS (
                UPDATE jobs
                SET state = $4, lease_owner = NULL, lease_expires_at = NULL, finished_at = now(),
                    updated_at = now(), error_class = $5, error_message = $6
                WHERE id = $1 AND lease_owner = $2 AND attempt = $3 AND state = 'running'
                RETURNING id, attempt
            ), recorded AS (
                UPDATE job_attempts a
                SET finished_at = now(), outcome = $7, error_class = $5, message = $6, http_status = $8
                FROM finished f WHERE a.job_id = f.id AND a.attempt = f.attempt
            )
            SELECT id FROM finished
            """,
            [
                lease.jobID, lease.owner, lease.attempt, state.rawValue, failure?.errorClass.rawValue,
                failure?.message, outcome.rawValue, failure?.httpStatus,
            ])
        return !rows.isEmpty
    }
}
