import Foundation
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// The schema the code needs is the newest migration it ships: the CLI's check and the worker's
/// wait both read `StenoSchema.requiredMigration`, and this suite keeps it equal to the folder.
@Suite("Schema version")
struct SchemaVersionTests {
    @Test("the required migration is the newest file in migrations/")
    func requiredMigrationIsTheNewestFile() throws {
        let newest = try #require(try Migration.load(from: PackageRoot.migrations).map(\.version).max())
        #expect(StenoSchema.requiredMigration == newest,
                "migrations/ ends at \(newest): set StenoSchema.requiredMigration to it, so that the CLI and the worker wait for it")
    }

    @Test("the applied migration is nil without a schema, then the newest one applied")
    func appliedMigrationFollowsTheDatabase() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            #expect(try await StenoSchema.appliedMigration(client) == nil)
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let all = try Migration.load(from: PackageRoot.migrations)
            _ = try await MigrationRunner(migrations: all.filter { $0.version < StenoSchema.requiredMigration }).migrate(on: connection)
            #expect(try await StenoSchema.appliedMigration(client) == StenoSchema.requiredMigration - 1)
            _ = try await MigrationRunner(migrations: all).migrate(on: connection)
            await connection.close()
            #expect(try await StenoSchema.appliedMigration(client) == StenoSchema.requiredMigration)
        }
    }
}
