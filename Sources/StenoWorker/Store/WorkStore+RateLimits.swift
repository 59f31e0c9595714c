import Foundation
import StenoCore
import StenoPostgres

extension WorkStore {
    /// Takes one request of `audioSeconds` from `backend`'s fleet-wide budget, or says how long
    /// to wait for it. The bucket's row is locked while the (pure) decision is made, on the
    /// database's clock, so every worker of the fleet draws from the same budget.
    func takeRateToken(backend: String, limit: RateLimit, audioSeconds: Double) async throws -> TokenBucket.Decision {
        try await client.withTransaction { connection in
            // A new bucket starts full, refilled now; `full`'s own time is not used.
            let full = TokenBucket.full(limit, at: 0)
            try await connection.query(
                """
                INSERT INTO backend_rate_limits (backend, requests_per_minute, audio_seconds_per_hour, requests, audio_seconds, refilled_at)
                VALUES ($1, $2, $3, $4, $5, clock_timestamp())
                ON CONFLICT (backend) DO NOTHING
                """,
                [backend, limit.requestsPerMinute, limit.audioSecondsPerHour, full.requests, full.audioSeconds])
            // The clock is read once the row is locked: a turn that waited for the lock refills
            // for the time it waited.
            let row = try await connection.query(
                """
                SELECT requests, audio_seconds, extract(epoch FROM refilled_at)::float8 AS refilled_at,
                       extract(epoch FROM clock_timestamp())::float8 AS now
                FROM backend_rate_limits WHERE backend = $1 FOR UPDATE
                """,
                [backend]
            ).single()
            let now: Double = try row.decode("now")
            var bucket = TokenBucket(
                requests: try row.decode("requests"), audioSeconds: try row.decode("audio_seconds"), refilledAt: try row.decode("refilled_at"))
            let decision = bucket.take(audio: audioSeconds, limit: limit, at: now)
            let granted = decision == .granted
            try await connection.query(
                """
                UPDATE backend_rate_limits
                SET requests = $2, audio_seconds = $3, refilled_at = to_timestamp($4),
                    requests_per_minute = $5, audio_seconds_per_hour = $6,
                    granted = granted + $7, waited = waited + $8, updated_at = now()
                WHERE backend = $1
                """,
                [backend, bucket.requests, bucket.audioSeconds, bucket.refilledAt, limit.requestsPerMinute, limit.audioSecondsPerHour,
                 granted ? 1 : 0, granted ? 0 : 1])
            return decision
        }
    }
}
