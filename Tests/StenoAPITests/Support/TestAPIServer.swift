import Foundation
import Logging
import StenoAPI
import StenoInfrastructure
import StenoPostgres
import StenoTestSupport

/// A steno-api server over a test database, with an upload directory of its own, as both test
/// harnesses build it: `RunningAPI` on a port, `InProcessAPI` through the router alone.
struct TestAPIServer: Sendable {
    let server: APIServer
    /// The server's own pool; few connections, as the API suites share one cluster with the rest.
    let serverClient: PostgresClient
    /// The owner's session, which makes keys as `steno keys` would.
    let owner: PostgresClient
    let uploadDirectory: String
    let logger: Logger

    /// The server connects as `served`; keys are made through `keys` (the owner).
    init(served: TestDatabase, keys: TestDatabase, clock: any MonotonicClock, configure: (inout APIConfiguration) -> Void) throws {
        uploadDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("steno-uploads-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: uploadDirectory, withIntermediateDirectories: true)
        var settings = APIConfiguration(host: "127.0.0.1", port: 0, uploadDirectory: uploadDirectory)
        configure(&settings)
        var logger = Logger(label: "steno.api.test")
        logger.logLevel = .warning
        self.logger = logger
        serverClient = served.client(maxConnections: settings.databaseConnections)
        owner = keys.client(maxConnections: 1)
        server = APIServer(configuration: settings, database: served.configuration, client: serverClient, clock: clock, logger: logger)
    }

    /// Closes both pools and removes the upload directory.
    func close() async {
        await serverClient.shutdown()
        await owner.shutdown()
        try? FileManager.default.removeItem(atPath: uploadDirectory)
    }
}
