import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Each role logs in and tries what it must and must not do.
@Suite("roles: least privilege")
struct RolePrivilegeTests {
    /// Whether the statement ran; a permission error (42501) is `false`, anything else fails the test.
    private func allowed(_ connection: PostgresConnection, _ statement: String, _ parameters: [any PostgresEncodable] = []) async throws -> Bool {
        do {
            _ = try await connection.query(statement, parameters)
            return true
        } catch where error.sqlState == "42501" {
            return false
        }
    }

    private func seedMedia(_ database: TestDatabase) async throws -> Int64 {
        let client = database.client()
        defer { Task { await client.shutdown() } }
        return try await TestData.insertMedia(client, source: "http://alice:pw@media.example.com/book.mp3")
    }

    @Test("steno_reporting reads the reporting views and no base table")
    func reporting() async throws {
        try await TestDatabase.with { database in
            _ = try await seedMedia(database)
            try await database.withLogin(inRole: "steno_reporting") { reporter in
                let connection = try await PostgresConnection.connect(configuration: reporter.configuration)
                for view in ["steno_progress", "steno_chapter_progress", "steno_queue", "steno_throughput", "steno_latency", "steno_failures", "steno_costs", "steno_worker_status"] {
                    #expect(try await allowed(connection, "SELECT * FROM \(view) LIMIT 1"), "\(view)")
                }
                for table in ["media", "chapters", "chunks", "segments", "jobs", "job_attempts", "workers"] {
                    #expect(try await !allowed(connection, "SELECT * FROM \(table) LIMIT 1"), "steno_reporting read \(table)")
                }
                #expect(try await !allowed(connection, "SELECT source, webhook_url FROM media"))
                await connection.close()
            }
        }
    }

    @Test("steno_worker writes what a worker writes, and cannot add a media or change its source or webhook")
    func worker() async throws {
        try await TestDatabase.with { database in
            let mediaID = try await seedMedia(database)
            let owner = database.client()
            try await AdminStore(client: owner).setTenant("default", TenantChange(maxInFlight: .set(2)))
            await owner.shutdown()
            try await database.withLogin(inRole: "steno_worker") { worker in
                let connection = try await PostgresConnection.connect(configuration: worker.configuration)
                #expect(try await allowed(connection, "SELECT source FROM media WHERE id = $1 FOR UPDATE", [mediaID]))
                #expect(try await allowed(connection, "UPDATE media SET state = 'probing', updated_at = now() WHERE id = $1", [mediaID]))
                #expect(try await allowed(connection, "UPDATE media SET container = 'mp3', duration_seconds = 10, notified_at = now() WHERE id = $1", [mediaID]))
                #expect(try await allowed(connection, "INSERT INTO chapters (media_id, index, start_seconds, end_seconds) VALUES ($1, 0, 0, 10)", [mediaID]))
                #expect(try await allowed(connection, "INSERT INTO jobs (kind, media_id) VALUES ('chapter', $1)", [mediaID]))
                // The claim as a worker runs it, with the locks of a capped tenant.
                let client = worker.client()
                _ = try await JobStore(client: client).claim(limit: 2, worker: "w", lease: .seconds(10), mode: .shared(exactCaps: true))
                await client.shutdown()
                #expect(try await allowed(connection, "SELECT steno_over_budget(name, now()) FROM tenants"))
                #expect(try await !allowed(connection, "UPDATE tenants SET share = 100 WHERE name = 'default'"), "a worker raises no tenant's share")
                // The merge reads a tenant's voices and moves a record to its speaker's final
                // number; only a person names them or changes what a voice is.
                #expect(try await allowed(connection, "SELECT count(*) FROM voice_profile_sources"))
                #expect(try await !allowed(connection, "UPDATE voice_profile_sources SET embedding = '{1}'"), "a worker changes no profile's voices")
                #expect(try await !allowed(connection, "INSERT INTO voice_profile_sources (profile_id, embedding, pieces) VALUES (1, '{1}', 1)"))
                #expect(try await !allowed(connection, "UPDATE voice_profiles SET embedding = '{1}'"))

                #expect(try await !allowed(connection, "INSERT INTO media (source) VALUES ('/media/evil.mp3')"))
                #expect(try await !allowed(connection, "UPDATE media SET source = '/etc/shadow' WHERE id = $1", [mediaID]))
                #expect(try await !allowed(connection, "UPDATE media SET webhook_url = 'http://attacker.example/' WHERE id = $1", [mediaID]))
                #expect(try await !allowed(connection, "UPDATE media SET priority = 2, model = 'other', title = 'x' WHERE id = $1", [mediaID]))
                #expect(try await !allowed(connection, "DELETE FROM media WHERE id = $1", [mediaID]))
                await connection.close()
            }
        }
    }

    @Test("steno_admin runs an up-to-date `steno migrate`, and a pending one fails with what to do")
    func adminMigrate() async throws {
        try await TestDatabase.with { database in
            try await database.withLogin(inRole: "steno_admin") { admin in
                let connection = try await PostgresConnection.connect(configuration: admin.configuration)
                let migrations = try Migration.load(from: PackageRoot.migrations)
                #expect(try await MigrationRunner(migrations: migrations).migrate(on: connection).isEmpty)
                #expect(try await allowed(connection, "INSERT INTO media (source) VALUES ('/media/new.mp3')"))

                let extra = Migration(version: 9999, name: "extra", sql: "CREATE TABLE steno_extra (id int)")
                await #expect {
                    _ = try await MigrationRunner(migrations: migrations + [extra]).migrate(on: connection)
                } throws: { error in
                    "\(error)".contains("database owner")
                }
                await connection.close()
            }
        }
    }
}
