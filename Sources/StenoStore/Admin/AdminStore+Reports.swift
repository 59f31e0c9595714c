import Foundation
import StenoCore
import StenoPostgres

extension AdminStore {
    /// The operations report from the reporting views, for work finished since `since`.
    public func report(since: Date) async throws -> OperationsReport {
        let queue = try await client.query(
            """
            SELECT * FROM steno_queue
            ORDER BY array_position(ARRAY['media', 'chapter', 'chunk', 'merge'], kind),
                     array_position(ARRAY[\(literals: [JobState.queued, .running, .succeeded, .failed, .cancelled])], state)
            """
        ).map { row in
            OperationsReport.QueueDepth(
                kind: try row.decode("kind"), state: try row.decode("state"), jobs: try row.decode("jobs"),
                ready: try row.decode("ready"), delayed: try row.decode("delayed"), oldestAgeSeconds: try row.decode("oldest_age_seconds"))
        }
        let throughput = try await client.query(
            "SELECT * FROM steno_throughput WHERE hour >= date_trunc('hour', \(since)::timestamptz) ORDER BY hour"
        ).map { row in
            OperationsReport.Throughput(
                hour: try row.decode("hour"), mediaDone: try row.decode("media_done"), mediaAudioHours: try row.decode("media_audio_hours"),
                chunksDone: try row.decode("chunks_done"), chunkAudioHours: try row.decode("chunk_audio_hours"))
        }
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
        let failures = try await client.query(
            """
            SELECT error_class, sum(attempts) AS attempts, sum(final) AS final,
                   (array_agg(last_message ORDER BY hour DESC) FILTER (WHERE last_message IS NOT NULL))[1] AS last_message
            FROM steno_failures WHERE hour >= date_trunc('hour', \(since)::timestamptz)
            GROUP BY error_class ORDER BY sum(attempts) DESC, error_class
            """
        ).map { row in
            OperationsReport.Failures(
                errorClass: try row.decode("error_class"), attempts: try row.decode("attempts"), final: try row.decode("final"),
                lastMessage: try row.decode("last_message"))
        }
        let costs = try await client.query(
            "SELECT day::text AS day, model, backend, chunks, audio_hours, cost_usd, speech_hours FROM steno_costs WHERE day >= \(since)::timestamptz::date ORDER BY day, model, backend"
        ).map { row in
            OperationsReport.Cost(
                day: try row.decode("day"), model: try row.decode("model"), backend: try row.decode("backend"),
                chunks: try row.decode("chunks"), audioHours: try row.decode("audio_hours"), costUSD: try row.decode("cost_usd"),
                speechHours: try row.decode("speech_hours"))
        }
        return OperationsReport(since: since, queue: queue, throughput: throughput, latency: latency, failures: failures, costs: costs)
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
                   extract(epoch FROM refilled_at)::float8 AS refilled_at, extract(epoch FROM now())::float8 AS now
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
