public import Foundation
public import StenoCore
import StenoPostgres

extension AdminStore {
    /// Fails with `notFound` unless media `mediaID` exists and belongs to `tenant`: to a key of
    /// another tenant, a media is not there at all (never "forbidden", which would confirm it).
    public func requireMedia(_ mediaID: Int64, tenant: String) async throws {
        let rows = try await client.query("SELECT 1 AS found FROM media WHERE id = \(mediaID) AND tenant = \(tenant)")
        guard !rows.isEmpty else { throw Self.noSuchMedia(mediaID) }
    }

    /// The source of a tenant's media (for deleting an uploaded file with it).
    public func source(of mediaID: Int64, tenant: String) async throws -> String {
        let rows = try await client.query("SELECT source FROM media WHERE id = \(mediaID) AND tenant = \(tenant)")
        guard let row = rows.first else { throw Self.noSuchMedia(mediaID) }
        return try row.decode("source")
    }

    /// The sources of media, by id, whatever their tenant (the operator's CLI).
    public func sources(of mediaIDs: [Int64]) async throws -> [Int64: String] {
        var sources: [Int64: String] = [:]
        for row in try await client.query("SELECT id, source FROM media WHERE id = ANY(\(mediaIDs))") {
            sources[try row.decode("id")] = try row.decode("source")
        }
        return sources
    }

    /// The progress of a tenant's media; `notFound` for another tenant's.
    public func progress(of mediaID: Int64, tenant: String) async throws -> MediaProgress {
        let rows = try await client.query(
            "SELECT * FROM steno_progress WHERE media_id = (SELECT id FROM media WHERE id = \(mediaID) AND tenant = \(tenant))")
        guard let row = rows.first else { throw Self.noSuchMedia(mediaID) }
        return try MediaProgress(row: row)
    }

    /// The progress of these media with the tenant each belongs to, for an event stream that
    /// reads a change once and hands it to every client of that tenant.
    public func progressWithTenants(of mediaIDs: [Int64]) async throws -> [(tenant: String, progress: MediaProgress)] {
        try await client.query(
            """
            SELECT p.*, m.tenant FROM steno_progress p JOIN media m ON m.id = p.media_id
            WHERE p.media_id = ANY(\(mediaIDs)::bigint[]) ORDER BY p.media_id
            """
        ).map { (try $0.decode("tenant"), try MediaProgress(row: $0)) }
    }
}

extension AdminStore {
    /// The tenant's media that an earlier request with this `Idempotency-Key` made.
    public func mediaID(tenant: String, idempotencyKey: String) async throws -> Int64? {
        try await client.query("SELECT id FROM media WHERE tenant = \(tenant) AND idempotency_key = \(idempotencyKey)")
            .first?.decode("id")
    }
}

extension AdminStore {
    /// Every tenant with its settings, its work now and its use today and this month (UTC),
    /// by name; with `name`, that one only (`notFound` if it has no row).
    public func tenants(named name: String? = nil) async throws -> [TenantOverview] {
        let now = time.now
        let rows = try await client.query(
            """
            SELECT t.*, steno_over_budget(t.name, \(now)) AS held_reason,
                   (SELECT count(*) FROM jobs WHERE tenant = t.name AND state = \(literal: JobState.queued)) AS queued,
                   r.running, r.running_chunks,
                   (SELECT count(*) FROM media WHERE tenant = t.name) AS media,
                   d.audio_seconds AS d_audio, d.paid_seconds AS d_paid, d.cost_usd AS d_cost, d.chunks AS d_chunks, d.media AS d_media,
                   m.audio_seconds AS m_audio, m.paid_seconds AS m_paid, m.cost_usd AS m_cost, m.chunks AS m_chunks, m.media AS m_media,
                   to_char((\(now) AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS today,
                   to_char(date_trunc('month', \(now) AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS month_start
            FROM tenants t
            CROSS JOIN LATERAL (
                SELECT count(*) AS running, count(*) FILTER (WHERE kind = \(literal: JobKind.chunk)) AS running_chunks
                FROM jobs WHERE tenant = t.name AND state = \(literal: JobState.running)
            ) r
            CROSS JOIN LATERAL (\(Self.usageSum(from: "(\(now) AT TIME ZONE 'UTC')::date"))) d
            CROSS JOIN LATERAL (\(Self.usageSum(from: "date_trunc('month', \(now) AT TIME ZONE 'UTC')::date"))) m
            WHERE \(name)::text IS NULL OR t.name = \(name)
            ORDER BY t.name
            """)
        let tenants = try rows.map { row in
            TenantOverview(
                name: try row.decode("name"), settings: try Self.settings(row),
                queuedJobs: try row.decode("queued"), runningJobs: try row.decode("running"),
                runningChunkJobs: try row.decode("running_chunks"), media: try row.decode("media"),
                today: TenantUsage(
                    day: try row.decode("today"), audioSeconds: try row.decode("d_audio"), paidSeconds: try row.decode("d_paid"),
                    costUSD: try row.decode("d_cost"), chunks: try row.decode("d_chunks"), media: try row.decode("d_media")),
                month: TenantUsage(
                    day: try row.decode("month_start"), audioSeconds: try row.decode("m_audio"), paidSeconds: try row.decode("m_paid"),
                    costUSD: try row.decode("m_cost"), chunks: try row.decode("m_chunks"), media: try row.decode("m_media")),
                heldReason: try row.decode("held_reason"))
        }
        if let name, tenants.isEmpty {
            throw AdminError(.notFound, "there is no tenant \(name)", hint: "`steno tenants list` shows them; `steno tenants set \(name)` makes one")
        }
        return tenants
    }

    /// Changes a tenant's settings, making the tenant if it has no row yet (its media may come
    /// later), and returns them. Takes effect at the next claim of any worker; a cap is kept
    /// exactly from each worker's next heartbeat.
    @discardableResult
    public func setTenant(_ name: String, _ change: TenantChange) async throws -> TenantSettings {
        guard NewMedia.isValidTenant(name) else {
            throw AdminError(.invalidInput, "the tenant name \(name) \(NewMedia.tenantRule)")
        }
        return try await client.withTransaction { connection in
            try await connection.query("INSERT INTO tenants (name) VALUES (\(name)) ON CONFLICT DO NOTHING")
            let current = try Self.settings(try await connection.query("SELECT * FROM tenants WHERE name = \(name) FOR UPDATE").single())
            let next: TenantSettings
            switch change.applied(to: current) {
            case .success(let settings): next = settings
            case .failure(let problem): throw AdminError(.invalidInput, problem.description)
            }
            try await connection.query(
                """
                UPDATE tenants SET share = \(next.share), max_in_flight = \(next.maxInFlight),
                       daily_audio_hours = \(next.dailyAudioHours), monthly_audio_hours = \(next.monthlyAudioHours),
                       daily_cost_usd = \(next.dailyCostUSD), monthly_cost_usd = \(next.monthlyCostUSD), updated_at = now()
                WHERE name = \(name)
                """)
            // Workers waiting for work wake and claim under the new settings.
            try await connection.query("SELECT pg_notify(\(JobStore.Channel.jobs), '')")
            return next
        }
    }

    /// Each tenant's use by UTC day from `since` (a day, `YYYY-MM-DD`), newest first: the
    /// `steno_tenant_usage` view billing reads.
    public func tenantUsage(tenant: String? = nil, since: Date) async throws -> [(tenant: String, usage: TenantUsage)] {
        try await client.query(
            """
            SELECT tenant, to_char(day, 'YYYY-MM-DD') AS day, audio_seconds, paid_seconds, cost_usd::float8 AS cost_usd, chunks, media
            FROM steno_tenant_usage
            WHERE day >= (\(since)::timestamptz AT TIME ZONE 'UTC')::date AND (\(tenant)::text IS NULL OR tenant = \(tenant))
            ORDER BY day DESC, tenant
            """
        ).map { row in
            (try row.decode("tenant"),
             TenantUsage(
                day: try row.decode("day"), audioSeconds: try row.decode("audio_seconds"), paidSeconds: try row.decode("paid_seconds"),
                costUSD: try row.decode("cost_usd"), chunks: try row.decode("chunks"), media: try row.decode("media")))
        }
    }

    private static func usageSum(from day: PostgresQuery) -> PostgresQuery {
        """
        SELECT coalesce(sum(audio_seconds), 0)::float8 AS audio_seconds, coalesce(sum(paid_seconds), 0)::float8 AS paid_seconds,
               coalesce(sum(cost_usd), 0)::float8 AS cost_usd, coalesce(sum(chunks), 0)::integer AS chunks,
               coalesce(sum(media), 0)::integer AS media
        FROM tenant_usage WHERE tenant = t.name AND day >= \(day)
        """
    }

    private static func settings(_ row: PostgresRow) throws -> TenantSettings {
        TenantSettings(
            share: try row.decode("share"), maxInFlight: try row.decode("max_in_flight"),
            dailyAudioHours: try row.decode("daily_audio_hours"), monthlyAudioHours: try row.decode("monthly_audio_hours"),
            dailyCostUSD: try row.decode("daily_cost_usd"), monthlyCostUSD: try row.decode("monthly_cost_usd"))
    }
}
