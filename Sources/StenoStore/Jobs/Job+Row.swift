import Foundation
import StenoCore
import StenoPostgres

extension Job {
    /// The columns `init(row:)` reads, for statements that return jobs.
    static let columns: PostgresQuery = """
        j.id, j.kind, j.state, j.priority, j.run_at, j.attempt, j.max_attempts, j.media_id, j.chapter_id, j.chunk_id,
        j.lease_owner, j.lease_expires_at, j.cancel_requested, j.error_class, j.error_message, j.created_at,
        j.crash_rescues, j.runs_alone
        """

    /// Reads a `jobs` row (`Job.columns`, or `SELECT *`).
    init(row: PostgresRow) throws(PostgresError) {
        self.init(
            id: try row.decode("id"),
            kind: try row.decode("kind"),
            state: try row.decode("state"),
            priority: try row.decode("priority"),
            runAt: try row.decode("run_at"),
            attempt: try row.decode("attempt"),
            maxAttempts: try row.decode("max_attempts"),
            mediaID: try row.decode("media_id"),
            chapterID: try row.decode("chapter_id"),
            chunkID: try row.decode("chunk_id"),
            leaseOwner: try row.decode("lease_owner"),
            leaseExpiresAt: try row.decode("lease_expires_at"),
            cancelRequested: try row.decode("cancel_requested"),
            errorClass: try row.decode("error_class"),
            errorMessage: try row.decode("error_message"),
            createdAt: try row.decode("created_at"),
            crashRescues: try row.decode("crash_rescues"),
            runsAlone: try row.decode("runs_alone"))
    }
}

extension JobAttempt {
    /// Reads a `job_attempts` row.
    init(row: PostgresRow) throws(PostgresError) {
        self.init(
            jobID: try row.decode("job_id"),
            attempt: try row.decode("attempt"),
            worker: try row.decode("worker"),
            startedAt: try row.decode("started_at"),
            finishedAt: try row.decode("finished_at"),
            outcome: try row.decode("outcome"),
            errorClass: try row.decode("error_class"),
            httpStatus: try row.decode("http_status"),
            message: try row.decode("message"))
    }
}
