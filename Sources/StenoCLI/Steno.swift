public import ArgumentParser
import StenoCore

/// The admin CLI's root command.
@available(macOS 15, *)
public struct Steno: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "steno",
        abstract: "Administer Steno: migrate the database, enqueue recordings, follow, cancel, retry and export transcripts.",
        discussion: HelpText.reflow("""
            Configuration comes from flags and STENO_* environment variables; the database from
            --database-url or STENO_DATABASE_URL (a postgres:// URL or a libpq keyword string), and
            otherwise libpq's PGHOST, PGPORT, PGDATABASE, PGUSER and PGPASSWORD.

            \(StenoExitCode.help)
            """),
        version: StenoVersion.current,
        subcommands: [
            Migrate.self, Enqueue.self, Status.self, List.self, Wait.self, Focus.self, Cancel.self, Retry.self,
            Delete.self, TranscriptCommand.self, Speakers.self, Workers.self, Report.self, Probe.self, Backend.self, Keys.self, Tenants.self,
        ]
    )

    public init() {}
}
