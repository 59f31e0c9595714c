import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

@Suite("steno migrate")
struct MigrateCommandTests {
    @Test("creates the schema on an empty database and says so; a second run applies nothing")
    func migrateTwice() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let url = database.configuration.connectionString
            let first = try await StenoProcess.run(["migrate", "--database-url", url, "--migrations", PackageRoot.migrations.path])
            #expect(first.status == 0, "\(first.standardError)")
            let migrations = try Migration.load(from: PackageRoot.migrations)
            #expect(migrations.count >= 7)
            for migration in migrations {
                #expect(first.standardOutput.contains("applied \(String(format: "%04d", migration.version))_\(migration.name)"), "\(first.standardOutput)")
            }
            #expect(first.standardOutput.contains("Applied \(migrations.count) migrations."))

            let second = try await StenoProcess.run(["migrate", "--database-url", url, "--migrations", PackageRoot.migrations.path])
            #expect(second.status == 0)
            #expect(second.standardOutput.contains("nothing to apply"))

            let status = try await StenoProcess.run(["migrate", "--status", "--json", "--database-url", url, "--migrations", PackageRoot.migrations.path])
            #expect(status.status == 0)
            let entries = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [[String: Any]]
            #expect(entries?.first?["version"] as? Int == 1)
            #expect(entries?.first?["applied_at"] is String)
        }
    }

    @Test("--status on an empty database lists the pending migration")
    func statusPending() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let result = try await StenoProcess.run(
                ["migrate", "--status", "--database-url", database.configuration.connectionString, "--migrations", PackageRoot.migrations.path])
            #expect(result.status == 0)
            let migrations = try Migration.load(from: PackageRoot.migrations)
            for migration in migrations {
                #expect(result.standardOutput.contains("\(String(format: "%04d", migration.version))_\(migration.name)  pending"), "\(result.standardOutput)")
            }
            #expect(result.standardOutput.contains("\(migrations.count) pending: run `steno migrate`."))
        }
    }

    @Test("an unreachable database exits 3 with a hint and no password")
    func unreachable() async throws {
        let password = TestSecret.make("pw")
        let result = try await StenoProcess.run(
            ["migrate", "--database-url", "postgres://steno:\(password)@127.0.0.1:1/steno", "--connect-window", "0",
             "--migrations", PackageRoot.migrations.path])
        #expect(result.status == 3)
        #expect(result.standardError.contains("cannot reach the database"))
        #expect(result.standardError.contains("STENO_DATABASE_URL"))
        #expect(!result.standardError.contains(password))
        #expect(!result.standardOutput.contains(password))
    }

    @Test("a missing migrations directory says where it looked and what to pass")
    func missingDirectory() async throws {
        let result = try await StenoProcess.run(["migrate", "--migrations", "/nonexistent/migrations"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("/nonexistent/migrations"))
        #expect(result.standardError.contains("--migrations"))
    }

    @Test("a bad flag is a usage error")
    func badFlag() async throws {
        let result = try await StenoProcess.run(["migrate", "--no-such-flag"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("no-such-flag"))
    }
}
