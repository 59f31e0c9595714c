public import Foundation
public import StenoCore
public import StenoPostgres

extension JobStore {
    /// What a failed attempt makes of its job (`j`): cancelled when its flag is set, failed once
    /// out of attempts, else queued again. Used by retries and by rescues alike.
    static let stateAfterFailedAttempt: PostgresQuery =
        "CASE WHEN j.cancel_requested THEN \(literal: JobState.cancelled) WHEN j.attempt >= j.max_attempts THEN \(literal: JobState.failed) ELSE \(literal: JobState.queued) END"

    /// The lease fence: a write to a running job (`j`) goes through only for the attempt and
    /// worker (`held`) that hold it. Every heartbeat and every end of an attempt uses it.
    static let leaseFence: PostgresQuery =
        "j.id = held.id AND j.attempt = held.attempt AND j.lease_owner = held.owner AND j.state = \(literal: JobState.running)"

    /// The leases as a `held(id, attempt, owner)` relation, whatever workers hold them.
    static func held(_ leases: [JobLease]) -> PostgresQuery {
        "unnest(\(leases.map(\.jobID))::bigint[], \(leases.map(\.attempt))::integer[], \(leases.map(\.owner))::text[]) AS held(id, attempt, owner)"
    }

    /// Whether `lease` still holds its job, on `connection`; with `locking`, the job's row is
    /// locked for the caller's transaction, so that no rescue or claim can take the job back
    /// before it commits. Every write a job makes before its end goes through this fence.
    public static func holds(_ lease: JobLease, locking: Bool = false, on connection: PostgresConnection) async throws -> Bool {
        try await !connection.query(
            "SELECT j.id FROM jobs j, \(held([lease])) WHERE \(leaseFence) \(locking ? "FOR UPDATE OF j" as PostgresQuery : "")"
        ).isEmpty
    }

    /// Ends the attempts `leases` hold, as `end` says, each with its `job_attempts` row, in one
    /// statement. A lease that no longer holds (rescued, finished, claimed again) writes nothing
    /// and is not returned.
    public func end(_ leases: [JobLease], as end: AttemptEnd) async throws -> [EndedJob] {
        try await client.withConnection { [time] in try await Self.end(leases, as: end, now: time.now, on: $0) }
    }

    /// `end(_:as:)` on `connection`, so that a caller can commit it in one transaction with its own writes.
    public static func end(
        _ leases: [JobLease], as end: AttemptEnd, now: PostgresQuery = StatementTime.database.now, on connection: PostgresConnection
    ) async throws -> [EndedJob] {
        guard !leases.isEmpty else { return [] }
        return try endedJobs(try await connection.query(statement(ending: end, held: held(leases), now: now)))
    }

    /// The one statement every end of an attempt runs: the job's transition and the attempt's
    /// record. `held` names the attempts (`held(id, attempt, owner)`), already locked or fenced here.
    static func statement(ending end: AttemptEnd, held: PostgresQuery, now: PostgresQuery = StatementTime.database.now) -> PostgresQuery {
        let next = end.nextState
        let maxAttempts: PostgresQuery = end.givesAttemptBack
            ? "CASE WHEN j.cancel_requested THEN j.max_attempts ELSE j.max_attempts + 1 END" : "j.max_attempts"
        return """
            WITH ended AS (
                UPDATE jobs j
                SET state = \(next), lease_owner = NULL, lease_expires_at = NULL,
                    run_at = CASE WHEN \(next) = \(literal: JobState.queued) THEN \(end.runAt(now: now)) ELSE j.run_at END,
                    max_attempts = \(maxAttempts),
                    finished_at = CASE WHEN \(next) = \(literal: JobState.queued) THEN NULL ELSE \(now) END,
                    updated_at = \(now), error_class = \(end.jobErrorClass), error_message = \(end.jobErrorMessage)
                    \(end.moreAssignments)
                FROM \(held)
                WHERE \(leaseFence)
                RETURNING j.id, j.kind, j.state, j.attempt, held.owner AS worker, j.run_at, j.started_at,
                          j.media_id, j.chapter_id, j.chunk_id
            ), recorded AS (
                INSERT INTO job_attempts (job_id, attempt, worker, started_at, finished_at, outcome, error_class, http_status, message, answer_discarded,
                                          worker_exit, crashed)
                SELECT e.id, e.attempt, e.worker, COALESCE(e.started_at, \(now)), \(now), \(end.outcome),
                       \(end.attemptErrorClass), \(end.failure?.httpStatus), \(end.attemptMessage), \(end.answerDiscarded),
                       \(end.workerExit), \(end.crashed)
                FROM ended e
                \(end.recordsOverOlderRows ? Self.overOlderRow : "")
            )
            SELECT id, kind, state, attempt, worker, run_at, media_id, chapter_id, chunk_id FROM ended
            """
    }

    /// A worker of a version before migration 0010 inserted its attempt's row at the claim;
    /// when such an attempt is rescued, its row is completed instead. Only a rescue can meet
    /// one (a worker ends its own attempts), so the hot path pays no speculative insert.
    static let overOlderRow: PostgresQuery = """
        ON CONFLICT (job_id, attempt) DO UPDATE
        SET finished_at = EXCLUDED.finished_at, outcome = EXCLUDED.outcome, error_class = EXCLUDED.error_class,
            http_status = EXCLUDED.http_status, message = EXCLUDED.message, answer_discarded = EXCLUDED.answer_discarded
        """

    static func endedJobs(_ rows: PostgresRows) throws -> [EndedJob] {
        try rows.map { row in
            EndedJob(
                id: try row.decode("id"), kind: try row.decode("kind"), state: try row.decode("state"),
                attempt: try row.decode("attempt"), worker: try row.decode("worker"), runAt: try row.decode("run_at"),
                mediaID: try row.decode("media_id"), chapterID: try row.decode("chapter_id"), chunkID: try row.decode("chunk_id"))
        }.sorted { $0.id < $1.id }
    }

    // The named transitions, each one `end` with its case.

    /// Marks the jobs succeeded; returns the leases that still held (the others wrote nothing).
    @discardableResult
    public func complete(_ leases: [JobLease]) async throws -> Set<JobLease> {
        Set(try await end(leases, as: .succeeded()).map(\.lease))
    }

    /// Marks the job succeeded; `false` when the lease was lost and nothing was written.
    @discardableResult
    public func complete(_ lease: JobLease) async throws -> Bool {
        try await complete([lease]).contains(lease)
    }

    /// Fails the job for good (no further attempts); `false` when the lease was lost.
    @discardableResult
    public func fail(_ lease: JobLease, _ failure: Failure) async throws -> Bool {
        !(try await end([lease], as: .failed(failure))).isEmpty
    }

    /// Ends the job as cancelled, after the worker saw the cancel flag; `false` when the lease was lost.
    @discardableResult
    public func markCancelled(_ lease: JobLease, message: String = "cancelled by request") async throws -> Bool {
        !(try await end([lease], as: .cancelled(message: message))).isEmpty
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

        public init(_ ended: EndedJob?) {
            guard let ended else {
                self = .leaseLost
                return
            }
            switch ended.state {
            case .queued: self = .requeued(runAt: ended.runAt)
            case .cancelled: self = .cancelled
            default: self = .failed
            }
        }
    }

    /// Ends a transiently failed attempt: the job runs again after `delay` (on the database's clock),
    /// or fails once it has used `max_attempts`.
    public func retryLater(_ lease: JobLease, after delay: Duration, _ failure: Failure) async throws -> RetryDecision {
        RetryDecision(try await end([lease], as: .retry(after: delay, failure)).first)
    }

    /// Hands running jobs back at shutdown: queued again at once, without using up one of the job's
    /// attempts (or cancelled, when the flag is set). Returns the leases that still held.
    @discardableResult
    public func release(_ leases: [JobLease]) async throws -> Set<JobLease> {
        Set(try await end(leases, as: .released).map(\.lease))
    }
}
