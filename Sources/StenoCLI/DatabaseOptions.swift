public import ArgumentParser
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
    public var connectWindow: String?

    public init() {}

    func configuration() throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration.fromEnvironment(defaultWait: PostgresConfiguration.cliWait)
        if let databaseURL {
            configuration.connectionString = databaseURL
        }
        if let seconds = try connectWindowSeconds {
            configuration.reconnectWindow = .seconds(seconds)
        }
        return configuration
    }

    /// The same range and wording as `STENO_DATABASE_WAIT_SECONDS`, which it overrides.
    var connectWindowSeconds: Int? {
        get throws {
            try connectWindow.map { try FlagValue.integer($0, "--connect-window", in: PostgresConfiguration.waitRange, unit: "seconds") }
        }
    }

    public func validate() throws {
        _ = try connectWindowSeconds
    }
}
