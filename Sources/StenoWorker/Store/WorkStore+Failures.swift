import Foundation
import StenoCore
import StenoPostgres

extension WorkStore {
    /// Fails the job for good, and with it the chunk, the chapter and the media it works on,
    /// each with the reason; notifies `steno_media` when the media failed.
    public func fail(_ lease: JobLease, job: Job, _ failure: JobStore.Failure) async throws {
        try await client.withTransaction { connection in
            try await finish(lease, state: .failed, outcome: .failed, failure: failure, on: connection)
            try await markFailed(job: job, failure, on: connection)
        }
    }

    /// The rows a failed job worked on become `failed` with the reason (never a finished one).
    func markFailed(job: Job, _ failure: JobStore.Failure, on connection: PostgresConnection) async throws {
        try await markFailed(mediaID: job.mediaID, chapterID: job.chapterID, chunkID: job.chunkID, failure, on: connection)
    }

    func markFailed(
        mediaID: Int64?, chapterID: Int64?, chunkID: Int64?, _ failure: JobStore.Failure, on connection: PostgresConnection
    ) async throws {
        if let chunkID {
            try await connection.query(
                """
                UPDATE chunks SET state = 'failed', error_class = $2, error_message = $3, finished_at = now(), updated_at = now()
                WHERE id = $1 AND state NOT IN ('succeeded', 'cancelled', 'split')
                """,
                [chunkID, failure.errorClass.rawValue, failure.message])
        }
        if let chapterID {
            try await connection.query(
                """
                UPDATE chapters SET state = 'failed', error_class = $2, error_message = $3, finished_at = now(), updated_at = now()
                WHERE id = $1 AND state NOT IN ('succeeded', 'cancelled')
                """,
                [chapterID, failure.errorClass.rawValue, failure.message])
        }
        if let mediaID {
            let failed = try await connection.query(
                """
                UPDATE media SET state = 'failed', error_class = $2, error_message = $3, finished_at = now(), updated_at = now()
                WHERE id = $1 AND state NOT IN ('succeeded', 'failed', 'cancelled')
                RETURNING id
                """,
                [mediaID, failure.errorClass.rawValue, failure.message])
            if !failed.isEmpty {
                try await connection.query("SELECT pg_notify($1, $2)", [JobStore.Channel.media, String(mediaID)])
            }
        }
    }

    /// After `retryLater` failed the job for good (out of attempts), fails its rows too.
    public func markFailed(job: Job, _ failure: JobStore.Failure) async throws {
        try await client.withTransaction { connection in
            try await markFailed(job: job, failure, on: connection)
        }
    }

    /// A chunk whose job went back to the queue is `queued` again.
    public func markRequeued(job: Job) async throws {
        guard let chunkID = job.chunkID else { return }
        try await client.query(Self.requeueChunk, [chunkID])
    }

    func markRequeued(chunkID: Int64, on connection: PostgresConnection) async throws {
        try await connection.query(Self.requeueChunk, [chunkID])
    }

    private static let requeueChunk = "UPDATE chunks SET state = 'queued', updated_at = now() WHERE id = $1 AND state = 'running'"

    func markChunkCancelled(chunkID: Int64, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE chunks SET state = 'cancelled', finished_at = now(), updated_at = now()
            WHERE id = $1 AND state IN ('queued', 'running')
            """,
            [chunkID])
    }

    /// Takes back the jobs of workers that stopped renewing their leases, and in the same
    /// transaction moves what they worked on: a requeued job's chunk is `queued` again, a
    /// cancelled one's `cancelled`, and a job out of attempts fails its chunk, chapter and media
    /// with a reason a person can act on (`steno retry` resumes them), so that nothing is left
    /// `running` or `transcribing` with no job to finish it.
    public func rescueExpired(limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = []) async throws -> [JobStore.RescuedJob] {
        try await client.withTransaction { connection in
            let rescued = try await JobStore.rescueExpired(limit: limit, sparing: owner, running: running, on: connection)
            for job in rescued {
                switch job.state {
                case .queued:
                    if let chunkID = job.chunkID { try await markRequeued(chunkID: chunkID, on: connection) }
                case .cancelled:
                    if let chunkID = job.chunkID { try await markChunkCancelled(chunkID: chunkID, on: connection) }
                case .failed:
                    let failure = JobStore.Failure(
                        .lostLease,
                        "the \(job.kind.rawValue) job was taken back from a worker that stopped renewing its lease \(job.attempt) times "
                            + "(workers crashed, were killed, or froze while running it); `steno retry` resumes it")
                    try await markFailed(mediaID: job.mediaID, chapterID: job.chapterID, chunkID: job.chunkID, failure, on: connection)
                default:
                    break
                }
            }
            return rescued
        }
    }

    /// Ends the job as cancelled (its flag was set, or its media or chapter is cancelled), and
    /// its chunk with it.
    public func cancel(_ lease: JobLease, job: Job, message: String) async throws {
        try await client.withTransaction { connection in
            try await finish(lease, state: .cancelled, outcome: .cancelled, failure: JobStore.Failure(.cancelled, message), on: connection)
            if let chunkID = job.chunkID { try await markChunkCancelled(chunkID: chunkID, on: connection) }
        }
    }
}
