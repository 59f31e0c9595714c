import Foundation
import Logging
import ServiceLifecycle
import StenoAPI
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import StenoTestSupport

/// A steno-api server on a free port of 127.0.0.1, in-process, against a test database, with an
/// upload directory of its own; shut down gracefully after the body.
struct RunningAPI: Sendable {
    let port: Int
    let database: TestDatabase
    let client: PostgresClient
    let uploadDirectory: String
    let server: APIServer

    var baseURL: String { "http://127.0.0.1:\(port)" }
    func url(_ path: String) -> String { baseURL + path }

    /// A new key of this scope and tenant.
    func key(_ scope: APIScope, tenant: String = "acme") async throws -> String {
        let token = try await KeyStore(client: client).create(scope: scope, tenant: tenant, name: "test").token.secret
        TestSecret.record(token)
        return token
    }

    var uploadedFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: uploadDirectory)) ?? []).sorted()
    }

    static func with<Result>(
        database given: TestDatabase? = nil, login role: String? = nil, clock: any MonotonicClock = .continuous,
        configure: (inout APIConfiguration) -> Void = { _ in }, _ body: (RunningAPI) async throws -> Result
    ) async throws -> Result {
        if let given { return try await run(given, login: role, clock: clock, configure: configure, body) }
        return try await TestDatabase.with { database in try await run(database, login: role, clock: clock, configure: configure, body) }
    }

    private static func run<Result>(
        _ database: TestDatabase, login role: String?, clock: any MonotonicClock, configure: (inout APIConfiguration) -> Void,
        _ body: (RunningAPI) async throws -> Result
    ) async throws -> Result {
        if let role {
            return try await database.withLogin(inRole: role) { login in
                try await serve(served: login, keys: database, clock: clock, configure: configure, body)
            }
        }
        return try await serve(served: database, keys: database, clock: clock, configure: configure, body)
    }

    /// The server connects as `served`; keys are made through `keys` (the owner, as `steno keys` would).
    private static func serve<Result>(
        served: TestDatabase, keys: TestDatabase, clock: any MonotonicClock, configure: (inout APIConfiguration) -> Void,
        _ body: (RunningAPI) async throws -> Result
    ) async throws -> Result {
        let made = try TestAPIServer(served: served, keys: keys, clock: clock, configure: configure)
        let server = made.server
        let logger = made.logger
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let group = ServiceGroup(
            configuration: .init(services: server.services { portContinuation.yield($0) }, gracefulShutdownSignals: [], logger: logger))
        let running = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            throw TestEnvironmentError("steno-api did not start listening: \(await running.result)")
        }
        let api = RunningAPI(port: port, database: served, client: made.owner, uploadDirectory: made.uploadDirectory, server: server)
        let result: Result
        do {
            result = try await body(api)
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            await made.close()
            throw error
        }
        await group.triggerGracefulShutdown()
        _ = await running.result
        await made.close()
        return result
    }
}
