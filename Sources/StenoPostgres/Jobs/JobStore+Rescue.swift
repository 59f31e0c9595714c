import Foundation
import StenoCore

extension JobStore {
    /// A job taken back from a worker whose lease expired.
    public struct RescuedJob: Sendable, Equatable {
        public var id: Int64
        public var kind: JobKind
        /// `queued` to run again, `failed` when out of attempts, `cancelled` when the flag was set.
        public var state: JobState
        public var attempt: Int
        public var previousOwner: String
        public var mediaID: Int64?
        public var chapterID: Int64?
        public var chunkID: Int64?
    }

    /// Takes back up to `limit` running jobs whose lease expired (a crashed or frozen worker):
    /// back to `queued`, or `failed` once out of attempts; the lost attempt is recorded.
    /// Any worker may call it; concurrent callers skip each other's rows.
    /// The worker's rescue runs `rescueExpired(limit:sparing:on:)` in a transaction with what the
    /// rescued jobs' chunks, chapters and media become (`WorkStore.rescueExpired`).
    public func rescueExpired(limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = []) async throws -> [RescuedJob] {
        try Self.rescuedJobs(try await client.query(Self.rescueStatement, [limit, owner, running]))
    }

    /// The jobs `owner` is still `running` are spared: a live worker whose heartbeat ran late must
    /// not take back the jobs it is still running (another worker will, if it really stopped).
    /// Its own jobs that it no longer runs (it could not record how one ended) it takes back
    /// like any other: in a fleet of one, nobody else would.
    public static func rescueExpired(
        limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = [], on connection: PostgresConnection
    ) async throws -> [RescuedJob] {
        try rescuedJobs(try await connection.query(rescueStatement, [limit, owner, running]))
    }

    private static let rescueStatement = """
            WITH expired AS (
                SELECT id, lease_owner AS previous_owner,
                       CASE WHEN cancel_requested THEN 'cancelled'
                            WHEN attempt >= max_attempts THEN 'failed'
                            ELSE 'queued' END AS next_state
                FROM jobs
                WHERE state = 'running' AND lease_expires_at < now()
                  AND NOT (lease_owner = $2::text AND id = ANY($3::bigint[]))
                ORDER BY lease_expires_at
                LIMIT $1
                FOR UPDATE SKIP LOCKED
            ), rescued AS (
                UPDATE jobs j
                SET state = e.next_state, lease_owner = NULL, lease_expires_at = NULL, run_at = now(),
                    finished_at = CASE WHEN e.next_state = 'queued' THEN NULL ELSE now() END,
                    updated_at = now(), error_class = 'lost_lease',
                    error_message = 'worker ' || e.previous_owner || ' stopped renewing its lease'
                FROM expired e
                WHERE j.id = e.id
                RETURNING j.id, j.kind, j.state, j.attempt, e.previous_owner, j.media_id, j.chapter_id, j.chunk_id
            ), recorded AS (
                UPDATE job_attempts a
                SET finished_at = now(), outcome = 'lease_expired', error_class = 'lost_lease',
                    message = 'lease expired without a heartbeat'
                FROM rescued r WHERE a.job_id = r.id AND a.attempt = r.attempt
            )
            SELECT * FROM rescued ORDER BY id
            """

    private static func rescuedJobs(_ rows: PostgresRows) throws -> [RescuedJob] {
        try rows.map { row in
            RescuedJob(
                id: try row.decode("id"), kind: try row.decode("kind"), state: try row.decode("state"),
                attempt: try row.decode("attempt"), previousOwner: try row.decode("previous_owner"),
                mediaID: try row.decode("media_id"), chapterID: try row.decode("chapter_id"), chunkID: try row.decode("chunk_id"))
        }
    }
}
