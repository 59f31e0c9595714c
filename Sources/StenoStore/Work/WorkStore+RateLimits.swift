import Foundation
public import StenoCore
import StenoPostgres

extension WorkStore {
    /// Takes one request of `audioSeconds` from `backend`'s fleet-wide budget, or says how long
    /// to wait for it. The bucket's row is locked while the (pure) decision is made, on the
    /// database's clock, so every worker of the fleet draws from the same budget.
    public func takeRateToken(backend: String, limit: RateLimit, audioSeconds: Double) async throws -> TokenBucket.Decision {
        try await client.withTransaction { connection in
            // A new bucket starts full, refilled now; `full`'s own time is not used.
            let full = TokenBucket.full(limit, at: 0)
            try await connection.query(
                """
                INSERT INTO backend_rate_limits (backend, requests_per_minute, audio_seconds_per_hour, requests, audio_seconds, refilled_at)
                VALUES (\(backend), \(limit.requestsPerMinute), \(limit.audioSecondsPerHour), \(full.requests), \(full.audioSeconds), \(time.current))
                ON CONFLICT (backend) DO NOTHING
                """)
            // The clock is read once the row is locked: a turn that waited for the lock refills
            // for the time it waited.
            let row = try await connection.query(
                """
                SELECT requests, audio_seconds, extract(epoch FROM refilled_at)::float8 AS refilled_at,
                       extract(epoch FROM \(time.current))::float8 AS now
                FROM backend_rate_limits WHERE backend = \(backend) FOR UPDATE
                """
            ).single()
            let now: Double = try row.decode("now")
            var bucket = TokenBucket(
                requests: try row.decode("requests"), audioSeconds: try row.decode("audio_seconds"), refilledAt: try row.decode("refilled_at"))
            let decision = bucket.take(audio: audioSeconds, limit: limit, at: now)
            let granted = decision == .granted
            try await connection.query(
                """
                UPDATE backend_rate_limits
                SET requests = \(bucket.requests), audio_seconds = \(bucket.audioSeconds), refilled_at = to_timestamp(\(bucket.refilledAt)),
                    requests_per_minute = \(limit.requestsPerMinute), audio_seconds_per_hour = \(limit.audioSecondsPerHour),
                    granted = granted + \(granted ? 1 : 0), waited = waited + \(granted ? 0 : 1), updated_at = now()
                WHERE backend = \(backend)
                """)
            return decision
        }
    }
}
