import ArgumentParser

/// The admin CLI's root command.
@available(macOS 15, *)
public struct Steno: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "steno",
        abstract: "Administer Steno: migrate the database, enqueue recordings, follow, cancel, retry and export transcripts.",
        discussion: """
            Configuration comes from flags and STENO_* environment variables; the database from
            --database-url or STENO_DATABASE_URL (a postgres:// URL or a libpq keyword string), and
            otherwise libpq's PGHOST, PGPORT, PGDATABASE, PGUSER and PGPASSWORD.

            Exit codes: 0 success, 1 the operation failed, 2 bad usage or configuration,
            3 the database is unreachable, 4 the database schema is out of date (run `steno migrate`).
            """,
        version: StenoVersion.current,
        subcommands: [Migrate.self, Probe.self, Backend.self]
    )

    public init() {}
}

/// The version every Steno binary reports.
public enum StenoVersion {
    public static let current = "0.1.0"
}
