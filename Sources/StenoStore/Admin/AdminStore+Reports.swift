public import Foundation
public import StenoCore
import StenoPostgres

extension AdminStore {
    /// The operations report for work finished since `since`, with the queue as of now.
    ///
    /// Each statement reads what the window holds, not the history kept: the views
    /// (`steno_queue`, `steno_throughput`, `steno_failures`, `steno_costs`) group every row
    /// they have before a filter on their hour or day can apply, so these statements bound
    /// the rows first, on indexed columns (`finished_at >= ...`; migrations 0010, 0014, 0015),
    /// and group what is left the way the views do. `ReportCommandTests` holds them to the
    /// views' figures.
    public func report(since: Date) async throws -> OperationsReport {
        // One "now" for the whole call: its statements agree on the time.
        let now = time.now
        // Waiting and running jobs as of now (partial indexes on those states), and the jobs
        // that ended in the window.
        let queue = try await client.query(
            """
            SELECT kind, state, count(*) AS jobs,
                   count(*) FILTER (WHERE state = \(literal: JobState.queued) AND run_at <= \(now)) AS ready,
                   count(*) FILTER (WHERE state = \(literal: JobState.queued) AND run_at > \(now)) AS delayed,
                   round(extract(epoch FROM \(now) - min(created_at))::numeric, 1) AS oldest_age_seconds
            FROM (
                SELECT kind, state, run_at, created_at FROM jobs WHERE state = \(literal: JobState.queued)
                UNION ALL
                SELECT kind, state, run_at, created_at FROM jobs WHERE state = \(literal: JobState.running)
                UNION ALL
                SELECT kind, state, run_at, created_at FROM jobs
                WHERE finished_at >= \(since) AND state IN (\(literals: [JobState.succeeded, .failed, .cancelled]))
            ) AS j
            GROUP BY kind, state
            ORDER BY array_position(ARRAY[\(literals: JobKind.allCases)], kind),
                     array_position(ARRAY[\(literals: [JobState.queued, .running, .succeeded, .failed, .cancelled])], state)
            """
        ).map { row in
            OperationsReport.QueueDepth(
                kind: try row.decode("kind"), state: try row.decode("state"), jobs: try row.decode("jobs"),
                ready: try row.decode("ready"), delayed: try row.decode("delayed"), oldestAgeSeconds: try row.decode("oldest_age_seconds"))
        }
        // `steno_throughput` from its hour on: `hour >= date_trunc('hour', since)` is
        // `finished_at >= date_trunc('hour', since)`.
        let throughput = try await client.query(
            """
            SELECT hour, sum(media_done) AS media_done, round(sum(media_seconds)::numeric / 3600, 3) AS media_audio_hours,
                   sum(chunks_done) AS chunks_done, round(sum(chunk_seconds)::numeric / 3600, 3) AS chunk_audio_hours
            FROM (
                SELECT date_trunc('hour', finished_at) AS hour, count(*) AS media_done,
                       COALESCE(sum(duration_seconds), 0) AS media_seconds, 0 AS chunks_done, 0 AS chunk_seconds
                FROM media
                WHERE state = \(literal: MediaState.succeeded) AND finished_at >= date_trunc('hour', \(since)::timestamptz)
                GROUP BY 1
                UNION ALL
                SELECT date_trunc('hour', finished_at), 0, 0, count(*), sum(end_seconds - start_seconds)
                FROM chunks
                WHERE state = \(literal: ChunkState.succeeded) AND finished_at >= date_trunc('hour', \(since)::timestamptz)
                GROUP BY 1
            ) AS finished
            GROUP BY hour ORDER BY hour
            """
        ).map { row in
            OperationsReport.Throughput(
                hour: try row.decode("hour"), mediaDone: try row.decode("media_done"), mediaAudioHours: try row.decode("media_audio_hours"),
                chunksDone: try row.decode("chunks_done"), chunkAudioHours: try row.decode("chunk_audio_hours"))
        }
        // A plain view: the window's bound reaches `media_finished_idx` through it.
        let latencyRow = try await client.query(
            """
            SELECT count(*) AS media,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY enqueue_to_done_seconds) AS p50,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY enqueue_to_done_seconds) AS p95
            FROM steno_latency WHERE state = \(MediaState.succeeded) AND finished_at >= \(since)
            """
        ).single()
        let latency = OperationsReport.Latency(
            media: try latencyRow.decode("media"), p50Seconds: try latencyRow.decode("p50"), p95Seconds: try latencyRow.decode("p95"))
        // `steno_failures` by class from its hour on, read by the attempts' BRIN index.
        let failures = try await client.query(
            """
            SELECT COALESCE(a.error_class, 'unknown') AS error_class, count(*) AS attempts,
                   count(*) FILTER (WHERE a.outcome = \(literal: JobAttempt.Outcome.failed)) AS final,
                   (array_agg(a.message ORDER BY a.finished_at DESC) FILTER (WHERE a.message IS NOT NULL))[1] AS last_message
            FROM job_attempts a JOIN jobs j ON j.id = a.job_id
            WHERE a.finished_at >= date_trunc('hour', \(since)::timestamptz)
              AND a.outcome IN (\(literals: [JobAttempt.Outcome.failed, .retry, .leaseExpired]))
            GROUP BY 1 ORDER BY count(*) DESC, 1
            """
        ).map { row in
            OperationsReport.Failures(
                errorClass: try row.decode("error_class"), attempts: try row.decode("attempts"), final: try row.decode("final"),
                lastMessage: try row.decode("last_message"))
        }
        // `steno_costs` from its day on: `day >= since::date` is `finished_at >= since::date`
        // (midnight, in the session's UTC).
        let costs = try await client.query(
            """
            SELECT date_trunc('day', finished_at)::date::text AS day, COALESCE(model, 'unknown') AS model,
                   COALESCE(backend, 'unknown') AS backend, count(*) AS chunks,
                   round(sum(COALESCE(usage_seconds, end_seconds - start_seconds))::numeric / 3600, 3) AS audio_hours,
                   COALESCE(sum(cost_usd), 0) AS cost_usd,
                   round((sum(speech_seconds) / 3600)::numeric, 3) AS speech_hours
            FROM chunks
            WHERE finished_at >= \(since)::timestamptz::date::timestamptz
              AND (state = \(literal: ChunkState.succeeded) OR cost_usd IS NOT NULL) AND uploaded
            GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            """
        ).map { row in
            OperationsReport.Cost(
                day: try row.decode("day"), model: try row.decode("model"), backend: try row.decode("backend"),
                chunks: try row.decode("chunks"), audioHours: try row.decode("audio_hours"), costUSD: try row.decode("cost_usd"),
                speechHours: try row.decode("speech_hours"))
        }
        let tenants = try await tenantUsage(since: since).map { OperationsReport.TenantDay(tenant: $0.tenant, usage: $0.usage) }
        return OperationsReport(
            since: since, queue: queue, throughput: throughput, latency: latency, failures: failures, costs: costs, tenants: tenants)
    }

    /// Every worker that has registered, live or not, by id.
    public func workers() async throws -> [WorkerStatus] {
        try await client.query("SELECT *, paused_backends::text AS paused_json FROM steno_worker_status ORDER BY id").map { row in
            WorkerStatus(
                id: try row.decode("id"), hostname: try row.decode("hostname"), pid: try row.decode("pid"),
                version: try row.decode("version"), status: try row.decode("status"), statusMessage: try row.decode("status_message"),
                jobsInFlight: try row.decode("jobs_in_flight"), runningJobs: try row.decode("running_jobs"),
                pausedBackends: Self.pausedBackends(fromJSON: try row.decode("paused_json")),
                startedAt: try row.decode("started_at"), lastHeartbeatAt: try row.decode("last_heartbeat_at"),
                heartbeatAgeSeconds: try row.decode("heartbeat_age_seconds"))
        }
    }

    /// Each backend's fleet-wide rate limit, its buckets refilled to now (on the database's
    /// clock, by the same rule the workers take from them).
    public func rateLimits() async throws -> [RateLimitStatus] {
        try await client.query(
            """
            SELECT backend, requests_per_minute, audio_seconds_per_hour, granted, waited, requests, audio_seconds,
                   extract(epoch FROM refilled_at)::float8 AS refilled_at, extract(epoch FROM \(time.now))::float8 AS now
            FROM backend_rate_limits ORDER BY backend
            """
        ).map { row in
            let limit = RateLimit(requestsPerMinute: try row.decode("requests_per_minute"), audioSecondsPerHour: try row.decode("audio_seconds_per_hour"))
            var bucket = TokenBucket(
                requests: try row.decode("requests"), audioSeconds: try row.decode("audio_seconds"), refilledAt: try row.decode("refilled_at"))
            bucket.refill(limit, at: try row.decode("now"))
            return RateLimitStatus(
                backend: try row.decode("backend"), limit: limit,
                requestsFree: limit.requestsPerMinute == nil ? nil : bucket.requests,
                audioSecondsFree: limit.audioSecondsPerHour == nil ? nil : bucket.audioSeconds,
                granted: try row.decode("granted"), waited: try row.decode("waited"))
        }
    }

    /// `workers.paused_backends` maps a backend to what the worker stored about the pause: a
    /// string is shown as it is, anything else as compact JSON.
    static func pausedBackends(fromJSON json: String) -> [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return [:] }
        var backends: [String: String] = [:]
        for (backend, value) in object {
            if let text = value as? String {
                backends[backend] = text
            } else if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
                backends[backend] = String(decoding: data, as: UTF8.self)
            }
        }
        return backends
    }
}
