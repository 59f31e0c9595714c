import Foundation
import Logging
public import StenoPostgres

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

    /// A fresh database on the suite's cluster, or on `cluster` (a `TestCluster`'s connection
    /// string, for tests that stop or restart the server). A migrated one is a copy of a template
    /// migrated once per cluster (`CREATE DATABASE ... TEMPLATE`): running every migration for
    /// each of a few hundred tests kept the server busier than the tests themselves.
    public static func create(migrated: Bool, cluster: String? = nil) async throws -> TestDatabase {
        let cluster = try cluster ?? clusterConnectionString()
        let name = "steno_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try await PostgresConnection.connect(configuration: PostgresConfiguration(connectionString: cluster))
        // The names are generated, never user input, so they are safe as identifiers.
        do {
            if migrated {
                do {
                    let template = try await MigratedTemplate.name(on: cluster)
                    try await admin.query("CREATE DATABASE \(name) TEMPLATE \(template)", [])
                } catch let error as PostgresError where error.sqlState == "3D000" {
                    // No such template: a cluster made anew at an address this process used before.
                    MigratedTemplate.forget(on: cluster)
                    let template = try await MigratedTemplate.name(on: cluster)
                    try await admin.query("CREATE DATABASE \(name) TEMPLATE \(template)", [])
                }
            } else {
                try await admin.query("CREATE DATABASE \(name)", [])
            }
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        return TestDatabase(
            name: name,
            configuration: PostgresConfiguration(connectionString: cluster + " dbname=\(name)", applicationName: "steno-tests"))
    }

    /// The same database, logged in as `user` (the test cluster trusts local logins).
    public func connecting(as user: String) -> TestDatabase {
        var configuration = configuration
        configuration.connectionString += " user=\(user)"
        return TestDatabase(name: name, configuration: configuration)
    }

    /// Makes a login role that is a member of `role` (steno_worker, steno_admin, steno_reporting),
    /// runs `body` with this database seen through it, and drops the login role again.
    public func withLogin<Result>(inRole role: String, _ body: (TestDatabase) async throws -> Result) async throws -> Result {
        let login = "t_" + role + "_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let admin = try await PostgresConnection.connect(configuration: configuration)
        // Generated names and a fixed role list, never user input: safe as identifiers.
        try await admin.query("CREATE ROLE \(login) LOGIN IN ROLE \(role)", [])
        await admin.close()
        do {
            let result = try await body(connecting(as: login))
            try await dropLogin(login)
            return result
        } catch {
            try? await dropLogin(login)
            throw error
        }
    }

    private func dropLogin(_ login: String) async throws {
        let admin = try await PostgresConnection.connect(configuration: PostgresConfiguration(connectionString: try Self.clusterConnectionString()))
        try await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = \(login)")
        try await admin.query("DROP ROLE IF EXISTS \(login)", [])
        await admin.close()
    }

    public func client(maxConnections: Int = 4) -> PostgresClient {
        PostgresClient(configuration: configuration, maxConnections: maxConnections)
    }

    public func drop() async throws {
        let admin = try await PostgresConnection.connect(configuration: PostgresConfiguration(connectionString: try Self.clusterConnectionString()))
        try await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", [])
        await admin.close()
    }
}

/// The test environment is not what the tests need; says what to run.
public struct TestEnvironmentError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
