import ArgumentParser
import Foundation
import Logging
import StenoPostgres

/// Options shared by every command that talks to the database.
public struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL URL or libpq keyword string (default: STENO_DATABASE_URL, then libpq's PG* variables).",
            valueName: "url"))
    public var databaseURL: String?

    @Option(
        help: ArgumentHelp(
            "Seconds to keep retrying an unreachable database before giving up, 0-3600 (default: STENO_DATABASE_WAIT_SECONDS, else 10).",
            valueName: "seconds"))
    public var connectWindow: Int?

    public init() {}

    func configuration() throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration.fromEnvironment(defaultWait: PostgresConfiguration.cliWait)
        if let databaseURL {
            configuration.connectionString = databaseURL
        }
        if let connectWindow {
            configuration.reconnectWindow = .seconds(connectWindow)
        }
        return configuration
    }

    public func validate() throws {
        if let connectWindow, !PostgresConfiguration.waitRange.contains(connectWindow) {
            throw ValidationError(
                "--connect-window must be from \(PostgresConfiguration.waitRange.lowerBound) to \(PostgresConfiguration.waitRange.upperBound) seconds, not \(connectWindow)")
        }
    }
}
