import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension AdminStore {
    /// The web view's overview of `tenant`'s media, and with `includeFleet` the fleet's queue,
    /// pace, spend, workers and backends. Each statement reads an index or a bounded window
    /// (the unfinished jobs, the last day of chunks), so that the page costs the same however
    /// much history the database keeps; they run at once, on the pool's connections.
    public func overview(tenant: String, includeFleet: Bool) async throws -> FleetOverview {
        async let backlog = backlog(tenant: tenant)
        async let remaining = remainingWork(tenant: tenant)
        async let failures = failureGroups(tenant: tenant)
        let fleet = includeFleet ? try await fleetOverview() : nil
        let (remainingSeconds, oldest) = try await remaining
        return FleetOverview(
            tenant: tenant, backlog: try await backlog, remainingAudioSeconds: remainingSeconds, oldestWaitingSeconds: oldest,
            failures: try await failures, fleet: fleet)
    }

    private func backlog(tenant: String) async throws -> [FleetOverview.BacklogCell] {
        try await client.query("SELECT state, priority, count(*)::bigint AS media FROM media WHERE tenant = \(tenant) GROUP BY state, priority")
            .map { row in
                FleetOverview.BacklogCell(state: try row.decode("state"), priority: try row.decode("priority"), media: try row.decode("media"))
            }
    }

    /// Audio not transcribed yet of the unfinished media (of `tenant`, or of everyone's), and
    /// how long the oldest of them has waited.
    private func remainingWork(tenant: String?) async throws -> (seconds: Double, oldestWaiting: Double?) {
        let row = try await client.query(
            """
            SELECT coalesce(sum(CASE WHEN k.chunks = 0 THEN coalesce(m.duration_seconds, 0) ELSE k.left_seconds END), 0)::float8 AS remaining,
                   extract(epoch FROM \(time.now) - min(m.created_at))::float8 AS oldest_waiting
            FROM media m
            CROSS JOIN LATERAL (
                SELECT count(*) AS chunks,
                       coalesce(sum(c.end_seconds - c.start_seconds) FILTER (WHERE c.state IN (\(literals: [ChunkState.queued, .running]))), 0) AS left_seconds
                FROM chunks c WHERE c.media_id = m.id
            ) k
            WHERE m.state IN (\(literals: [MediaState.queued, .probing, .transcribing])) AND (\(tenant)::text IS NULL OR m.tenant = \(tenant)::text)
            """
        ).single()
        return (try row.decode("remaining"), try row.decode("oldest_waiting"))
    }

    /// The tenant's failures by class: media that failed for good (retry applies), and
    /// unfinished media with a job waiting to retry after a failure (cancel applies).
    private func failureGroups(tenant: String) async throws -> [FleetOverview.FailureGroup] {
        try await client.query(
            """
            WITH troubled AS (\(Self.troubledMedia(tenant: tenant)))
            SELECT error_class, count(*) FILTER (WHERE final) AS failed_media, count(*) FILTER (WHERE NOT final) AS retrying_media,
                   (array_agg(message ORDER BY at DESC) FILTER (WHERE message IS NOT NULL))[1] AS last_message, max(id) AS newest_media
            FROM troubled
            GROUP BY error_class ORDER BY count(*) DESC, error_class
            """
        ).map { row in
            FleetOverview.FailureGroup(
                errorClass: try row.decode("error_class"), failedMedia: try row.decode("failed_media"),
                retryingMedia: try row.decode("retrying_media"), lastMessage: try row.decode("last_message"),
                newestMediaID: try row.decode("newest_media"))
        }
    }

    /// The one rule for which class a tenant's media in trouble is counted under, one row per
    /// media (`id, error_class, message, at, final`): a failed media under the class it failed
    /// with (`final`), an unfinished one under the class of its latest failed job that waits to
    /// retry. The overview's groups and the groups' actions (`failedMediaIDs`,
    /// `retryingMediaIDs`) all read it, so an action reaches exactly the media its group counts.
    static func troubledMedia(tenant: String) -> PostgresQuery {
        """
        SELECT m.id, coalesce(m.error_class, 'unknown') AS error_class, m.error_message AS message, m.updated_at AS at, true AS final
        FROM media m WHERE m.state = \(literal: MediaState.failed) AND m.tenant = \(tenant)
        UNION ALL
        (SELECT DISTINCT ON (m.id) m.id, coalesce(j.error_class, 'unknown') AS error_class, j.error_message AS message, j.updated_at AS at,
                false AS final
         FROM media m JOIN jobs j ON j.media_id = m.id
         WHERE m.state IN (\(literals: [MediaState.queued, .probing, .transcribing])) AND m.tenant = \(tenant)
           AND j.state = \(literal: JobState.queued) AND j.attempt > 0 AND j.error_class IS NOT NULL
         ORDER BY m.id, j.updated_at DESC, j.id DESC)
        """
    }

    private func fleetOverview() async throws -> FleetOverview.Fleet {
        async let queue = activeQueue()
        async let remaining = remainingWork(tenant: nil)
        async let spend = spend()
        async let workers = workers()
        async let backends = backends()
        let (queueRows, oldestReady) = try await queue
        let (spendTotals, lastHourAudio, workingFor) = try await spend
        return FleetOverview.Fleet(
            queue: queueRows, oldestWaitingSeconds: oldestReady,
            estimate: BacklogEstimate(remainingAudioSeconds: try await remaining.seconds, audioSecondsDone: lastHourAudio, workingFor: workingFor),
            spend: spendTotals, workers: try await workers, backends: try await backends)
    }

    /// Queued and running jobs by kind, from the two partial indexes that hold only them (the
    /// finished history is not read), and the age of the oldest job ready to run.
    private func activeQueue() async throws -> ([OperationsReport.QueueDepth], Double?) {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        let rows = try await client.query(
            """
            SELECT kind, state, count(*)::bigint AS jobs,
                   count(*) FILTER (WHERE state = \(literal: JobState.queued) AND run_at <= \(now))::bigint AS ready,
                   count(*) FILTER (WHERE state = \(literal: JobState.queued) AND run_at > \(now))::bigint AS delayed,
                   extract(epoch FROM \(now) - min(created_at))::float8 AS oldest_age_seconds,
                   extract(epoch FROM \(now) - min(run_at) FILTER (WHERE state = \(literal: JobState.queued) AND run_at <= \(now)))::float8 AS oldest_ready
            FROM jobs WHERE state IN (\(literals: [JobState.queued, .running]))
            GROUP BY kind, state
            ORDER BY array_position(ARRAY[\(literals: JobKind.allCases)], kind), state DESC
            """)
        let queue = try rows.map { row in
            OperationsReport.QueueDepth(
                kind: try row.decode("kind"), state: try row.decode("state"), jobs: try row.decode("jobs"), ready: try row.decode("ready"),
                delayed: try row.decode("delayed"), oldestAgeSeconds: try row.decode("oldest_age_seconds"))
        }
        let oldest = try rows.compactMap { try $0.decode("oldest_ready", as: Double?.self) }.max()
        return (queue, oldest)
    }

    /// Paid audio, audio transcribed and cost over the last 24 hours (and cost over the last
    /// hour); for the pace, the audio transcribed in the last hour and since when that work ran.
    private func spend() async throws -> (FleetOverview.Spend, Double, Double?) {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        let row = try await client.query(
            """
            SELECT coalesce(sum(coalesce(usage_seconds, end_seconds - start_seconds)) FILTER (WHERE uploaded AND (state = \(literal: ChunkState.succeeded) OR cost_usd IS NOT NULL)), 0)::float8 AS paid,
                   coalesce(sum(end_seconds - start_seconds) FILTER (WHERE state = \(literal: ChunkState.succeeded)), 0)::float8 AS audio,
                   coalesce(sum(cost_usd), 0)::float8 AS cost,
                   coalesce(sum(cost_usd) FILTER (WHERE finished_at > \(now) - interval '1 hour'), 0)::float8 AS cost_hour,
                   coalesce(sum(end_seconds - start_seconds) FILTER (WHERE state = \(literal: ChunkState.succeeded) AND finished_at > \(now) - interval '1 hour'), 0)::float8 AS audio_hour,
                   extract(epoch FROM \(now) - min(created_at) FILTER (WHERE state = \(literal: ChunkState.succeeded) AND finished_at > \(now) - interval '1 hour'))::float8 AS working_for
            FROM chunks WHERE finished_at > \(now) - interval '24 hours'
            """
        ).single()
        return (
            FleetOverview.Spend(
                paidSeconds: try row.decode("paid"), audioSeconds: try row.decode("audio"), costUSD: try row.decode("cost"),
                costLastHourUSD: try row.decode("cost_hour")),
            try row.decode("audio_hour"), try row.decode("working_for")
        )
    }

    /// Every backend that is down, rate-limited, named by a live worker, or used in the last day.
    private func backends() async throws -> [FleetOverview.Backend] {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        async let outageRows = client.query("SELECT backend, reason, since, probe_at, failures FROM backend_outages")
        async let windowRows = client.query(
            """
            SELECT backend, sum(request_limit)::float8 AS request_limit, sum(requests_in_flight)::bigint AS in_flight
            FROM workers
            WHERE backend IS NOT NULL AND status <> \(literal: WorkerState.stopped) AND last_heartbeat_at > \(now) - interval '60 seconds'
            GROUP BY backend
            """)
        async let pausedRows = client.query(
            """
            SELECT p.backend, count(*)::bigint AS workers
            FROM workers w CROSS JOIN LATERAL jsonb_object_keys(w.paused_backends) AS p(backend)
            WHERE w.status <> \(literal: WorkerState.stopped) AND w.last_heartbeat_at > \(now) - interval '60 seconds'
            GROUP BY p.backend
            """)
        async let errorRows = client.query(
            """
            SELECT coalesce(c.backend, 'unknown') AS backend, coalesce(a.error_class, 'unknown') AS error_class, count(*)::bigint AS attempts
            FROM job_attempts a JOIN jobs j ON j.id = a.job_id JOIN chunks c ON c.id = j.chunk_id
            WHERE a.finished_at > \(now) - interval '24 hours' AND a.outcome IN (\(literals: [JobAttempt.Outcome.failed, .retry]))
            GROUP BY 1, 2
            """)
        async let spendRows = client.query(
            """
            SELECT backend, coalesce(sum(coalesce(usage_seconds, end_seconds - start_seconds)) FILTER (WHERE uploaded), 0)::float8 AS paid,
                   coalesce(sum(cost_usd), 0)::float8 AS cost
            FROM chunks WHERE finished_at > \(now) - interval '24 hours' AND backend IS NOT NULL
              AND (state = \(literal: ChunkState.succeeded) OR cost_usd IS NOT NULL)
            GROUP BY backend
            """)
        async let limits = rateLimits()

        var backends: [String: FleetOverview.Backend] = [:]
        func update(_ name: String, _ change: (inout FleetOverview.Backend) -> Void) {
            var backend = backends[name] ?? FleetOverview.Backend(name: name)
            change(&backend)
            backends[name] = backend
        }
        for row in try await outageRows {
            let outage = FleetOverview.Backend.Outage(
                reason: try row.decode("reason"), since: try row.decode("since"), probeAt: try row.decode("probe_at"),
                failures: try row.decode("failures"))
            update(try row.decode("backend")) { $0.outage = outage }
        }
        for row in try await windowRows {
            let limit: Double? = try row.decode("request_limit")
            let inFlight: Int = try row.decode("in_flight")
            update(try row.decode("backend")) {
                $0.requestLimit = limit
                $0.requestsInFlight = inFlight
            }
        }
        for row in try await pausedRows {
            let workers: Int = try row.decode("workers")
            update(try row.decode("backend")) { $0.pausedBy = workers }
        }
        for row in try await errorRows {
            let count = FleetOverview.ErrorCount(errorClass: try row.decode("error_class"), attempts: try row.decode("attempts"))
            update(try row.decode("backend")) { $0.errorsByClass.append(count) }
        }
        for row in try await spendRows {
            let paid: Double = try row.decode("paid")
            let cost: Double = try row.decode("cost")
            update(try row.decode("backend")) {
                $0.paidSeconds = paid
                $0.costUSD = cost
            }
        }
        for limit in try await limits {
            update(limit.backend) { $0.rateLimit = limit }
        }
        return backends.values.map { backend in
            var backend = backend
            backend.errorsByClass.sort { ($0.attempts, $1.errorClass) > ($1.attempts, $0.errorClass) }
            return backend
        }.sorted { $0.name < $1.name }
    }
}
