public import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// Adds (or revives) this worker's row in `workers`, with a new liveness key: the advisory
    /// lock (`RescuePolicy.lockNamespace`, key) its listening session holds while the process
    /// lives. Returns the key. A process that reuses an ID gets a key of its own, so its
    /// predecessor's jobs are not taken for its own. `supervisorKey` is the lock of the process
    /// that supervises this one (`RescuePolicy.supervisorNamespace`), nil when it runs unsupervised.
    @discardableResult
    public func register(workerID: String, hostname: String, pid: Int, version: String, supervisorKey: Int32? = nil) async throws -> Int32 {
        try await client.query(
            """
            INSERT INTO workers (id, hostname, pid, version, status, started_at, last_heartbeat_at, liveness_key, supervisor_key)
            VALUES (\(workerID), \(hostname), \(pid), \(version), \(literal: WorkerState.running), now(), now(), nextval('workers_liveness_key_seq'),
                    \(supervisorKey))
            ON CONFLICT (id) DO UPDATE SET hostname = EXCLUDED.hostname, pid = EXCLUDED.pid, version = EXCLUDED.version,
                status = \(literal: WorkerState.running), started_at = now(), stopped_at = NULL, last_heartbeat_at = now(),
                liveness_key = EXCLUDED.liveness_key, supervisor_key = EXCLUDED.supervisor_key, exit = NULL
            RETURNING liveness_key
            """
        ).single().decode("liveness_key")
    }

    /// What a heartbeat brings back: the fleet's backend outages and what is due.
    public struct Heartbeat: Sendable, Equatable {
        public var outages: [Outage]
        public var due: DueWork
        /// How claims should hand jobs out, as the tenants' settings ask (`JobStore.claimMode()`).
        public var claimMode: ClaimMode = .unknown
        /// A job due to run alone has waited `RescuePolicy.aloneRoomAfter` and this worker is the
        /// live worker with the fewest jobs in flight: it claims nothing more until it has none,
        /// then takes that job.
        public var makeRoomForAlone = false
    }

    /// Work waiting for some worker to act, as one heartbeat saw it. The heartbeat is the
    /// worker's only poll: without it, an idle worker would scan for each of these on its own
    /// timer. `NOTIFY` still brings new jobs and finished media at once.
    public struct DueWork: Sendable, Equatable {
        /// Seconds until the first queued chunk job may run (0 or less: now), nil if none is queued.
        public var chunkJobsIn: Double?
        /// The same for media, chapter and merge jobs.
        public var otherJobsIn: Double?
        /// Seconds until the first lease expires (0 or less: expired) of a job the worker does not
        /// run and whose owner holds no liveness lock (or is this worker), nil if none: a lease
        /// rescue takes back once it expires.
        public var leaseExpiresIn: Double?
        /// Seconds until the first worker that holds its liveness lock, with a job whose lease
        /// expired, has gone without a heartbeat for the hang limit; nil if none.
        public var hungIn: Double?
        /// A running job's worker holds its liveness lock no more: its process died.
        public var ownersDied = false
        /// Finished media whose completion notice is due (not backing off).
        public var notices = false

        public init(
            chunkJobsIn: Double? = nil, otherJobsIn: Double? = nil, leaseExpiresIn: Double? = nil, hungIn: Double? = nil,
            ownersDied: Bool = false, notices: Bool = false
        ) {
            self.chunkJobsIn = chunkJobsIn
            self.otherJobsIn = otherJobsIn
            self.leaseExpiresIn = leaseExpiresIn
            self.hungIn = hungIn
            self.ownersDied = ownersDied
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
        running: [Int64] = [], webhookURL: String? = nil, noticesBackingOff: [Int64] = [], rescue: RescuePolicy = RescuePolicy(),
        requests: RequestWindow? = nil
    ) async throws -> Heartbeat {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        let paused = pausedBackends.mapValues { ISO8601DateFormatter().string(from: $0) }
        let rows = try await client.query(
            """
            WITH beat AS (
                UPDATE workers SET status = \(status), status_message = \(message), jobs_in_flight = \(jobsInFlight), paused_backends = \(Self.json(paused))::jsonb,
                                   backend = \(requests?.backend), request_limit = \(requests?.limit), requests_in_flight = \(requests?.inFlight),
                                   last_heartbeat_at = \(now)
                WHERE id = \(workerID) AND status <> \(literal: WorkerState.stopped)
            ), others AS MATERIALIZED (
                -- Running jobs this worker does not run, each with whether its owner's process lives
                -- (`pg_locks` read once) and whether a missing lock would prove it dead.
                SELECT j.lease_expires_at, j.lease_owner = \(workerID) AS mine, w.last_heartbeat_at,
                       \(JobStore.aliveOwner) AS alive, \(JobStore.fleetTakesIfDead(rescue, now: time.now)) AS provable
                FROM jobs j LEFT JOIN workers w ON w.id = j.lease_owner
                WHERE j.state = \(literal: JobState.running) AND NOT (j.lease_owner = \(workerID) AND j.id = ANY(\(running)::bigint[]))
            ), due AS (
                SELECT extract(epoch FROM (SELECT min(run_at) FROM jobs WHERE state = \(literal: JobState.queued) AND kind = \(literal: JobKind.chunk)) - \(now))
                           AS chunk_jobs_in,
                       extract(epoch FROM least(
                           (SELECT min(run_at) FROM jobs WHERE state = \(literal: JobState.queued) AND kind = \(literal: JobKind.media)),
                           (SELECT min(run_at) FROM jobs WHERE state = \(literal: JobState.queued) AND kind = \(literal: JobKind.chapter)),
                           (SELECT min(run_at) FROM jobs WHERE state = \(literal: JobState.queued) AND kind = \(literal: JobKind.merge))) - \(now)) AS other_jobs_in,
                       extract(epoch FROM (SELECT min(lease_expires_at) FROM others WHERE NOT alive OR mine) - \(now))
                           AS lease_expires_in,
                       extract(epoch FROM (SELECT min(last_heartbeat_at) FROM others WHERE alive AND NOT mine AND lease_expires_at < \(now))
                                          + make_interval(secs => \(rescue.hangLimit.seconds)::float8) - \(now))
                           AS hung_in,
                       coalesce((SELECT bool_or(provable AND NOT alive) FROM others), false) AS owners_died,
                       (EXISTS (SELECT 1 FROM media WHERE notified_at IS NULL AND webhook_url IS NOT NULL
                                                      AND state IN (\(literals: [MediaState.succeeded, .failed])) AND NOT (id = ANY(\(noticesBackingOff)::bigint[])))
                        OR (\(webhookURL)::text IS NOT NULL
                            AND EXISTS (SELECT 1 FROM media WHERE notified_at IS NULL AND state IN (\(literals: [MediaState.succeeded, .failed]))
                                                              AND NOT (id = ANY(\(noticesBackingOff)::bigint[]))))) AS notices,
                       (EXISTS (SELECT 1 FROM jobs WHERE state = \(literal: JobState.queued) AND runs_alone
                                                     AND run_at <= \(now) - make_interval(secs => \(RescuePolicy.aloneRoomAfter.seconds)::float8))
                        AND \(workerID) = (SELECT id FROM workers
                                           WHERE status = \(literal: WorkerState.running)
                                             AND last_heartbeat_at > \(now) - make_interval(secs => \(Self.liveWorkerBeat.seconds)::float8)
                                           ORDER BY jobs_in_flight, id LIMIT 1)) AS make_room_for_alone,
                       tenant_rules.*
                FROM \(JobStore.tenantsForClaimMode)
            )
            SELECT due.*, o.backend, o.reason, o.since, o.probe_at, o.failures
            FROM due LEFT JOIN backend_outages o ON true
            """)
        guard let first = rows.first else { return Heartbeat(outages: [], due: DueWork()) }
        let due = DueWork(
            chunkJobsIn: try first.decode("chunk_jobs_in"), otherJobsIn: try first.decode("other_jobs_in"),
            leaseExpiresIn: try first.decode("lease_expires_in"), hungIn: try first.decode("hung_in"),
            ownersDied: try first.decode("owners_died"), notices: try first.decode("notices"))
        let outages = try rows.compactMap { row -> Outage? in
            let backend: String? = try row.decode("backend")
            return backend == nil ? nil : try Outage(row: row)
        }
        let mode = try JobStore.claimMode(first)
        return Heartbeat(outages: outages, due: due, claimMode: mode, makeRoomForAlone: try first.decode("make_room_for_alone"))
    }

    /// A worker that beat within this long counts as live when one is picked to make room for
    /// a job that runs alone.
    static let liveWorkerBeat = Duration.seconds(60)

    /// The request window a worker's AIMD limiter allows towards its backend, as its heartbeat
    /// reports it for the overview.
    public struct RequestWindow: Sendable, Equatable {
        public var backend: String
        public var limit: Double
        public var inFlight: Int

        public init(backend: String, limit: Double, inFlight: Int) {
            self.backend = backend
            self.limit = limit
            self.inFlight = inFlight
        }
    }

    /// Marks the worker stopped at shutdown.
    public func deregister(workerID: String) async throws {
        try await client.query(
            """
            UPDATE workers SET status = \(literal: WorkerState.stopped), jobs_in_flight = 0, stopped_at = now(), last_heartbeat_at = now()
            WHERE id = \(workerID)
            """)
    }
}
