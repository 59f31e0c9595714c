import Foundation
import Logging
import StenoPostgres

/// A fresh database per test, in the cluster that `scripts/test` started, dropped afterwards.
///
/// Tests run in parallel; a database of their own keeps them from seeing each other's rows.
public struct TestDatabase: Sendable {
    public let name: String
    public let configuration: PostgresConfiguration

    /// The cluster's connection string, set by `scripts/test`.
    public static func clusterConnectionString() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["STENO_TEST_DATABASE_URL"], !url.isEmpty else {
            throw TestEnvironmentError("STENO_TEST_DATABASE_URL is not set: run the tests with scripts/test, which starts a private PostgreSQL")
        }
        return url
    }

    /// Creates a database, optionally migrated, runs `body`, and drops the database.
    public static func with<Result>(
        migrated: Bool = true,
        _ body: (TestDatabase) async throws -> Result
    ) async throws -> Result {
        let database = try await create(migrated: migrated)
        do {
            let result = try await body(database)
            try await database.drop()
            return result
        } catch {
            try? await database.drop()
            throw error
        }
    }

    public static func create(migrated: Bool) async throws -> TestDatabase {
        let cluster = try clusterConnectionString()
        let name = "steno_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try await PostgresConnection.connect(configuration: PostgresConfiguration(connectionString: cluster))
        // The name is generated above, never user input, so it is safe as an identifier.
        try await admin.query("CREATE DATABASE \(name)")
        await admin.close()
        let database = TestDatabase(
            name: name,
            configuration: PostgresConfiguration(connectionString: cluster + " dbname=\(name)", applicationName: "steno-tests"))
        if migrated {
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            _ = try await MigrationRunner(migrations: try Migration.load(from: PackageRoot.migrations)).migrate(on: connection)
            await connection.close()
        }
        return database
    }

    public func client(maxConnections: Int = 4) -> PostgresClient {
        PostgresClient(configuration: configuration, maxConnections: maxConnections)
    }

    public func drop() async throws {
        let admin = try await PostgresConnection.connect(configuration: PostgresConfiguration(connectionString: try Self.clusterConnectionString()))
        try await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await admin.close()
    }
}

/// The test environment is not what the tests need; says what to run.
public struct TestEnvironmentError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
