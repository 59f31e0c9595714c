import Foundation
import StenoCore
import StenoPostgres

extension WorkStore {
    /// Adds (or revives) this worker's row in `workers`.
    public func register(workerID: String, hostname: String, pid: Int, version: String) async throws {
        try await client.query(
            """
            INSERT INTO workers (id, hostname, pid, version, status, started_at, last_heartbeat_at)
            VALUES ($1, $2, $3, $4, 'running', now(), now())
            ON CONFLICT (id) DO UPDATE SET status = 'running', stopped_at = NULL, last_heartbeat_at = now()
            """,
            [workerID, hostname, pid, version])
    }

    /// The worker's heartbeat: status, jobs in flight and the backends it paused (name -> until).
    /// Returns the fleet's backend outages in the same statement, so that an idle worker's
    /// heartbeat stays one round trip.
    @discardableResult
    public func heartbeatWorker(
        workerID: String, status: String, message: String?, jobsInFlight: Int, pausedBackends: [String: Date]
    ) async throws -> [Outage] {
        let paused = pausedBackends.mapValues { ISO8601DateFormatter().string(from: $0) }
        return try await client.query(
            """
            WITH beat AS (
                UPDATE workers SET status = $2, status_message = $3, jobs_in_flight = $4, paused_backends = $5::jsonb,
                                   last_heartbeat_at = now()
                WHERE id = $1 AND status <> 'stopped'
            )
            SELECT backend, reason, since, probe_at, failures FROM backend_outages
            """,
            [workerID, status, message, jobsInFlight, try Self.json(paused)]
        ).map(Outage.init(row:))
    }

    /// Marks the worker stopped at shutdown.
    public func deregister(workerID: String) async throws {
        try await client.query(
            """
            UPDATE workers SET status = 'stopped', jobs_in_flight = 0, stopped_at = now(), last_heartbeat_at = now()
            WHERE id = $1
            """,
            [workerID])
    }
}
