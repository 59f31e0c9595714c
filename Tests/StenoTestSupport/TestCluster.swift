public import Foundation
public import StenoPostgres

/// A PostgreSQL cluster of a test's own, for tests that stop or restart the server.
public final class TestCluster: Sendable {
    public let directory: URL
    public let connectionString: String

    private init(directory: URL, connectionString: String) {
        self.directory = directory
        self.connectionString = connectionString
    }

    /// Starts a cluster, runs `body`, and stops and removes the cluster whatever happens.
    public static func with<Result>(_ body: (TestCluster) async throws -> Result) async throws -> Result {
        let cluster = try await start()
        do {
            let result = try await body(cluster)
            await cluster.stop()
            return result
        } catch {
            await cluster.stop()
            throw error
        }
    }

    public static func start() async throws -> TestCluster {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("steno-cluster-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let output = try await run(["start", directory.appendingPathComponent("pg").path])
        return TestCluster(directory: directory, connectionString: output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    public var configuration: PostgresConfiguration {
        PostgresConfiguration(connectionString: connectionString, applicationName: "steno-tests")
    }

    /// Fast shutdown (terminating every session), then start again; returns when it accepts connections.
    public func restart() async throws {
        _ = try await Self.run(["restart", directory.appendingPathComponent("pg").path])
    }

    /// Stops the server (fast shutdown) and keeps its data, for `startServer()`.
    public func stopServer() async throws {
        _ = try await Self.run(["stop", directory.appendingPathComponent("pg").path])
    }

    public func startServer() async throws {
        _ = try await Self.run(["start", directory.appendingPathComponent("pg").path])
    }

    public func stop() async {
        _ = try? await Self.run(["stop", directory.appendingPathComponent("pg").path])
        try? FileManager.default.removeItem(at: directory)
    }

    @discardableResult
    private static func run(_ arguments: [String]) async throws -> String {
        let script = PackageRoot.scripts.appendingPathComponent("pg-cluster").path
        // A scratch cluster (scripts/pg-cluster explains): its data dies with the test.
        var environment = ProcessInfo.processInfo.environment
        environment["STENO_PG_SCRATCH"] = "1"
        let result = try await ChildProcess.run(script, arguments, environment: environment)
        guard result.status == 0 else {
            throw TestEnvironmentError("scripts/pg-cluster \(arguments.joined(separator: " ")) failed: \(result.standardError)")
        }
        return result.standardOutput
    }
}
