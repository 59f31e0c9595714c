import Foundation
public import StenoCore
import StenoInfrastructure
public import StenoPostgres

/// The web view's sessions: made when someone signs in with an API key, ended by signing out,
/// by their expiry, or by revoking the key. The table keeps each session's SHA-256, never the
/// cookie's value.
public struct SessionStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) {
        self.client = client
    }

    /// A session for this key, lasting `lifetime`. Expired sessions are cleared on the way, so
    /// that the table holds the live ones and those of the last sign-in at most.
    public func create(keyID: Int64, lifetime: Duration) async throws -> WebSessionToken {
        let token = WebSessionToken.generate()
        try await client.query("DELETE FROM web_sessions WHERE expires_at < now()")
        try await client.query(
            """
            INSERT INTO web_sessions (token_hash, key_id, expires_at)
            VALUES (decode(\(Self.hashHex(token)), 'hex'), \(keyID), now() + make_interval(secs => \(lifetime.seconds)::float8))
            """)
        return token
    }

    /// The key behind a live session: nil when the session is unknown, expired or signed out,
    /// or its key was revoked.
    public func principal(for token: WebSessionToken) async throws -> APIPrincipal? {
        let rows = try await client.query(
            """
            SELECT k.id, k.prefix, k.scope, k.tenant FROM web_sessions s JOIN api_keys k ON k.id = s.key_id
            WHERE s.token_hash = decode(\(Self.hashHex(token)), 'hex') AND s.expires_at > now() AND k.revoked_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        return APIPrincipal(keyID: try row.decode("id"), prefix: try row.decode("prefix"), scope: try row.decode("scope"), tenant: try row.decode("tenant"))
    }

    /// Signs the session out.
    public func delete(_ token: WebSessionToken) async throws {
        try await client.query("DELETE FROM web_sessions WHERE token_hash = decode(\(Self.hashHex(token)), 'hex')")
    }

    static func hashHex(_ token: WebSessionToken) -> String {
        KeyStore.sha256Hex(token.secret)
    }
}
