import Foundation
import StenoCore
import StenoPostgres

extension WorkStore {
    /// Adds (or revives) this worker's row in `workers`.
    public func register(workerID: String, hostname: String, pid: Int, version: String) async throws {
        try await client.query(
            """
            INSERT INTO workers (id, hostname, pid, version, status, started_at, last_heartbeat_at)
            VALUES (\(workerID), \(hostname), \(pid), \(version), 'running', now(), now())
            ON CONFLICT (id) DO UPDATE SET hostname = EXCLUDED.hostname, pid = EXCLUDED.pid, version = EXCLUDED.version,
                status = 'running', started_at = now(), stopped_at = NULL, last_heartbeat_at = now()
            """)
    }

    /// What a heartbeat brings back: the fleet's backend outages and what is due.
    public struct Heartbeat: Sendable, Equatable {
        public var outages: [Outage]
        public var due: DueWork
    }

    /// Work waiting for some worker to act, as one heartbeat saw it. The heartbeat is the
    /// worker's only poll: without it, an idle worker would scan for each of these on its own
    /// timer. `NOTIFY` still brings new jobs and finished media at once.
    public struct DueWork: Sendable, Equatable {
        /// Seconds until the first queued chunk job may run (0 or less: now), nil if none is queued.
        public var chunkJobsIn: Double?
        /// The same for media, chapter and merge jobs.
        public var otherJobsIn: Double?
        /// Seconds until the first lease of a job the worker does not run expires (0 or less:
        /// expired), nil if none. A live worker renews its leases every quarter of the lease,
        /// so one about to expire belongs to a worker that stopped.
        public var leaseExpiresIn: Double?
        /// Finished media whose completion notice is due (not backing off).
        public var notices = false

        public init(chunkJobsIn: Double? = nil, otherJobsIn: Double? = nil, leaseExpiresIn: Double? = nil, notices: Bool = false) {
            self.chunkJobsIn = chunkJobsIn
            self.otherJobsIn = otherJobsIn
            self.leaseExpiresIn = leaseExpiresIn
            self.notices = notices
        }
    }

    /// The worker's heartbeat: status, jobs in flight and the backends it paused (name -> until).
    /// In the same statement, so that an idle worker's heartbeat stays one round trip, it reads
    /// the fleet's backend outages and what is due (`DueWork`): `running` are the jobs the
    /// worker still runs (their expired leases are not due: it renews them), `webhookURL` its
    /// default webhook and `noticesBackingOff` the media whose delivery it retries later.
    public func heartbeatWorker(
        workerID: String, status: WorkerState, message: String?, jobsInFlight: Int, pausedBackends: [String: Date],
        running: [Int64] = [], webhookURL: String? = nil, noticesBackingOff: [Int64] = []
    ) async throws -> Heartbeat {
        let paused = pausedBackends.mapValues { ISO8601DateFormatter().string(from: $0) }
        let rows = try await client.query(
            """
            WITH beat AS (
                UPDATE workers SET status = \(status), status_message = \(message), jobs_in_flight = \(jobsInFlight), paused_backends = \(Self.json(paused))::jsonb,
                                   last_heartbeat_at = now()
                WHERE id = \(workerID) AND status <> 'stopped'
            ), due AS (
                SELECT extract(epoch FROM (SELECT min(run_at) FROM jobs WHERE state = 'queued' AND kind = 'chunk') - now())
                           AS chunk_jobs_in,
                       extract(epoch FROM least(
                           (SELECT min(run_at) FROM jobs WHERE state = 'queued' AND kind = 'media'),
                           (SELECT min(run_at) FROM jobs WHERE state = 'queued' AND kind = 'chapter'),
                           (SELECT min(run_at) FROM jobs WHERE state = 'queued' AND kind = 'merge')) - now()) AS other_jobs_in,
                       extract(epoch FROM (SELECT min(lease_expires_at) FROM jobs
                                           WHERE state = 'running' AND NOT (lease_owner = \(workerID) AND id = ANY(\(running)::bigint[]))) - now())
                           AS lease_expires_in,
                       (EXISTS (SELECT 1 FROM media WHERE notified_at IS NULL AND webhook_url IS NOT NULL
                                                      AND state IN ('succeeded', 'failed') AND NOT (id = ANY(\(noticesBackingOff)::bigint[])))
                        OR (\(webhookURL)::text IS NOT NULL
                            AND EXISTS (SELECT 1 FROM media WHERE notified_at IS NULL AND state IN ('succeeded', 'failed')
                                                              AND NOT (id = ANY(\(noticesBackingOff)::bigint[]))))) AS notices
            )
            SELECT due.*, o.backend, o.reason, o.since, o.probe_at, o.failures
            FROM due LEFT JOIN backend_outages o ON true
            """)
        guard let first = rows.first else { return Heartbeat(outages: [], due: DueWork()) }
        let due = DueWork(
            chunkJobsIn: try first.decode("chunk_jobs_in"), otherJobsIn: try first.decode("other_jobs_in"),
            leaseExpiresIn: try first.decode("lease_expires_in"), notices: try first.decode("notices"))
        let outages = try rows.compactMap { row -> Outage? in
            let backend: String? = try row.decode("backend")
            return backend == nil ? nil : try Outage(row: row)
        }
        return Heartbeat(outages: outages, due: due)
    }

    /// Marks the worker stopped at shutdown.
    public func deregister(workerID: String) async throws {
        try await client.query(
            """
            UPDATE workers SET status = 'stopped', jobs_in_flight = 0, stopped_at = now(), last_heartbeat_at = now()
            WHERE id = \(workerID)
            """)
    }
}
