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

    @Option(help: ArgumentHelp("Seconds to keep retrying an unreachable database before giving up.", valueName: "seconds"))
    public var connectWindow: Int = 10

    public init() {}

    func configuration() throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration.fromEnvironment()
        if let databaseURL {
            configuration.connectionString = databaseURL
        }
        configuration.reconnectWindow = .seconds(max(0, connectWindow))
        return configuration
    }
}
