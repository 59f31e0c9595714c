import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Migration 0025 on a database the previous release (migration 0024) wrote, with keys and a
/// transcript.
@Suite("migration 0025: operating the fleet is a scope of its own")
struct OperateScopeMigrationTests {
    @Test("the default tenant's live admin keys become operate keys, every other key keeps its scope, and transcripts export byte for byte as before")
    func migratesKeys() async throws {
        let reference = try await FairShareMigrationTests.referenceExports()
        try await TestDatabase.with(migrated: false) { database in
            let all = try Migration.load(from: try Migration.locateDirectory())
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            _ = try await MigrationRunner(migrations: all.filter { $0.version <= 24 }).migrate(on: connection)

            let client = database.client()
            defer { Task { await client.shutdown() } }
            let inserted = try await TestMediaBuilder.insert(TranscriptExportTests.book(), into: client)
            // Keys as the previous release made them: the operator's (admin of default), one
            // revoked, a tenant's admin, and lesser keys of default.
            try await client.query(
                """
                INSERT INTO api_keys (prefix, token_hash, scope, tenant, name, revoked_at)
                VALUES ('stk_operator', sha256('a'), 'admin', 'default', 'operator', NULL),
                       ('stk_revoked1', sha256('b'), 'admin', 'default', 'old operator', now()),
                       ('stk_acmeadmi', sha256('c'), 'admin', 'acme', 'acme admin', NULL),
                       ('stk_defaultr', sha256('d'), 'read', 'default', 'reader', NULL),
                       ('stk_defaults', sha256('e'), 'submit', 'default', 'uploader', NULL)
                """)
            _ = try await MigrationRunner(migrations: all).migrate(on: connection)
            await connection.close()

            let scopes = Dictionary(uniqueKeysWithValues: try await client.query("SELECT prefix, scope FROM api_keys").map {
                (try $0.decode("prefix", as: String.self), try $0.decode("scope", as: String.self))
            })
            #expect(scopes == [
                "stk_operator": "operate", "stk_revoked1": "admin", "stk_acmeadmi": "admin", "stk_defaultr": "read", "stk_defaults": "submit",
            ])
            // The new scope is one a key can be made with; an unknown one is still refused.
            _ = try await KeyStore(client: client).create(scope: .operate, tenant: "ops", name: "dashboard")
            await #expect(throws: (any Error).self) {
                try await client.query("INSERT INTO api_keys (prefix, token_hash, scope, tenant) VALUES ('stk_bogus123', sha256('f'), 'root', 'default')")
            }
            #expect(try await FairShareMigrationTests.exports(AdminStore(client: client), inserted.mediaID) == reference)
        }
    }
}
