import Foundation
import StenoCore
import StenoPostgres

extension JobStore {
    /// Takes back up to `limit` running jobs whose lease expired (a crashed or frozen worker):
    /// back to `queued`, or `failed` once out of attempts; the lost attempt is recorded.
    /// Any worker may call it; concurrent callers skip each other's rows.
    /// The worker's rescue runs it in a transaction with what the rescued jobs' chunks, chapters
    /// and media become (`WorkStore.rescueExpired`).
    public func rescueExpired(limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = []) async throws -> [EndedJob] {
        try await client.withConnection { try await Self.rescueExpired(limit: limit, sparing: owner, running: running, on: $0) }
    }

    /// The jobs `owner` is still `running` are spared: a live worker whose heartbeat ran late must
    /// not take back the jobs it is still running (another worker will, if it really stopped).
    /// Its own jobs that it no longer runs (it could not record how one ended) it takes back
    /// like any other: in a fleet of one, nobody else would.
    public static func rescueExpired(
        limit: Int = 1000, sparing owner: String? = nil, running: [Int64] = [], on connection: PostgresConnection
    ) async throws -> [EndedJob] {
        let expired: PostgresQuery = """
            (SELECT id, attempt, lease_owner AS owner FROM jobs
             WHERE state = 'running' AND lease_expires_at < now()
               AND NOT (lease_owner = \(owner)::text AND id = ANY(\(running)::bigint[]))
             ORDER BY lease_expires_at
             LIMIT \(limit)
             FOR UPDATE SKIP LOCKED) AS held
            """
        return try endedJobs(try await connection.query(statement(ending: .leaseExpired, held: expired)))
    }
}
