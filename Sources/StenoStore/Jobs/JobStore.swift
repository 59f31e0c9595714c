import Foundation
import Logging
public import StenoCore
public import StenoPostgres

/// The job queue in PostgreSQL: enqueue, claim, heartbeat, finish, rescue and cancel.
///
/// Each operation is one statement, so one round trip, and batched where a worker handles many
/// jobs at once. Every write to a running job is fenced by its `JobLease`.
public struct JobStore: Sendable {
    /// Notification channels.
    public enum Channel {
        /// Jobs became claimable (sent by the triggers of migration 0010: on insert, and when a job
        /// becomes `queued` again).
        public static let jobs = "steno_jobs"
        /// Running jobs were flagged for cancel; the payload is the id of the worker holding them.
        public static let cancel = "steno_cancel"
        /// A media finished (succeeded, failed or cancelled); the payload is its id.
        public static let media = "steno_media"
    }

    public let client: PostgresClient
    /// What "now" is in the claim, the heartbeat, the ends of attempts and the rescue.
    public let time: StatementTime

    public init(client: PostgresClient, time: StatementTime = .database) {
        self.client = client
        self.time = time
    }

    /// Enqueues one job.
    public func enqueue(_ job: NewJob) async throws -> Int64 {
        let ids = try await enqueue([job])
        return ids[0]
    }

    /// Enqueues many jobs in one statement; returns their ids in the order given.
    public func enqueue(_ jobs: [NewJob]) async throws -> [Int64] {
        guard !jobs.isEmpty else { return [] }
        let rows = try await client.query(
            """
            INSERT INTO jobs (kind, priority, run_at, max_attempts, media_id, chapter_id, chunk_id, fair_key)
            SELECT kind, priority, COALESCE(run_at, \(time.now)), max_attempts, media_id, chapter_id, chunk_id, position - 1
            FROM unnest(
                \(jobs.map(\.kind.rawValue))::text[], \(jobs.map(\.priority.rawValue))::smallint[], \(jobs.map(\.runAt))::timestamptz[],
                \(jobs.map(\.maxAttempts))::integer[], \(jobs.map(\.mediaID))::bigint[], \(jobs.map(\.chapterID))::bigint[],
                \(jobs.map(\.chunkID))::bigint[]
            ) WITH ORDINALITY AS input(kind, priority, run_at, max_attempts, media_id, chapter_id, chunk_id, position)
            ORDER BY position
            RETURNING id
            """)
        // Identity values are drawn in insertion order, which follows `position`.
        return try rows.map { try $0.decode("id", as: Int64.self) }.sorted()
    }

    /// One job by id, or `nil`.
    public func job(_ id: Int64) async throws -> Job? {
        try await client.query("SELECT * FROM jobs WHERE id = \(id)").first.map(Job.init(row:))
    }

    /// The attempts of a job, oldest first.
    public func attempts(ofJob id: Int64) async throws -> [JobAttempt] {
        try await client.query("SELECT * FROM job_attempts WHERE job_id = \(id) ORDER BY attempt").map(JobAttempt.init(row:))
    }
}
