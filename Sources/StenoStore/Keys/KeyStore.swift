import Crypto
import Foundation
public import StenoCore
public import StenoPostgres

/// API keys: made and revoked by `steno keys` (as steno_admin), looked up by `steno-api` (as
/// steno_api, which may read them and mark them used, nothing else). The table keeps each
/// key's SHA-256, never the key.
public struct KeyStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) {
        self.client = client
    }

    /// Makes a key; its text is returned here once and stored nowhere.
    public func create(scope: APIScope, tenant: String, name: String?) async throws -> (token: APIKeyToken, key: APIKey) {
        guard NewMedia.isValidTenant(tenant) else {
            throw AdminError(.invalidInput, "--tenant \(NewMedia.tenantRule), not \(tenant)")
        }
        if let name, name.count > 200 {
            throw AdminError(.invalidInput, "--name has \(name.count) characters; the longest is 200")
        }
        let token = APIKeyToken.generate()
        let row = try await client.query(
            """
            INSERT INTO api_keys (prefix, token_hash, scope, tenant, name)
            VALUES (\(token.prefix), decode(\(Self.hashHex(token)), 'hex'), \(scope), \(tenant), \(name))
            RETURNING id, prefix, scope, tenant, name, created_at, revoked_at, last_used_at
            """
        ).single()
        return (token, try Self.key(row))
    }

    /// Every key, newest first; revoked ones too unless `activeOnly`.
    public func list(activeOnly: Bool = false) async throws -> [APIKey] {
        try await client.query(
            """
            SELECT id, prefix, scope, tenant, name, created_at, revoked_at, last_used_at FROM api_keys
            WHERE NOT \(activeOnly) OR revoked_at IS NULL
            ORDER BY id DESC
            """
        ).map(Self.key)
    }

    /// Revokes the key named by its id or prefix; `notFound` when none is, and an already
    /// revoked key stays revoked from its first time.
    public func revoke(_ idOrPrefix: String) async throws -> APIKey {
        let id = Int64(idOrPrefix)
        let rows = try await client.query(
            """
            UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
            WHERE id = \(id) OR prefix = \(idOrPrefix)
            RETURNING id, prefix, scope, tenant, name, created_at, revoked_at, last_used_at
            """)
        guard let row = rows.first else {
            throw AdminError(.notFound, "there is no API key \(idOrPrefix)", hint: "`steno keys list` shows the keys by id and prefix")
        }
        return try Self.key(row)
    }

    /// The key with this text, if it exists and is not revoked.
    public func principal(for token: APIKeyToken) async throws -> APIPrincipal? {
        let rows = try await client.query(
            """
            SELECT id, prefix, scope, tenant FROM api_keys
            WHERE token_hash = decode(\(Self.hashHex(token)), 'hex') AND revoked_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        return APIPrincipal(keyID: try row.decode("id"), prefix: try row.decode("prefix"), scope: try row.decode("scope"), tenant: try row.decode("tenant"))
    }

    /// Records that these keys were used now.
    public func markUsed(_ keyIDs: [Int64]) async throws {
        guard !keyIDs.isEmpty else { return }
        try await client.query("UPDATE api_keys SET last_used_at = now() WHERE id = ANY(\(keyIDs)::bigint[])")
    }

    static func hashHex(_ token: APIKeyToken) -> String {
        sha256Hex(token.secret)
    }

    /// What the tables keep of a secret (a key, a session): its SHA-256, as hex for `decode(..., 'hex')`.
    static func sha256Hex(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private static func key(_ row: PostgresRow) throws -> APIKey {
        APIKey(
            id: try row.decode("id"), prefix: try row.decode("prefix"), scope: try row.decode("scope"), tenant: try row.decode("tenant"),
            name: try row.decode("name"), createdAt: try row.decode("created_at"), revokedAt: try row.decode("revoked_at"),
            lastUsedAt: try row.decode("last_used_at"))
    }
}
