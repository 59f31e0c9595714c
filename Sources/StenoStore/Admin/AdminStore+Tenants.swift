import Foundation
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
