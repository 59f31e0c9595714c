import ArgumentParser

/// The exit codes every `steno` command documents in its help.
enum StenoExitCode {
    static let success = ExitCode(0)
    /// The operation failed for a reason not covered below.
    static let failed = ExitCode(1)
    /// Input that cannot be used: an unknown media or chapter, a source that cannot be enqueued,
    /// a duplicate, a bad configuration.
    static let invalidInput = ExitCode(2)
    static let databaseUnreachable = ExitCode(3)
    static let schemaOutdated = ExitCode(4)
    /// `steno wait`: a media failed.
    static let mediaFailed = ExitCode(5)
    /// `steno wait`: a media was cancelled or deleted.
    static let mediaCancelled = ExitCode(6)
    /// `steno wait --timeout`: time ran out first.
    static let timedOut = ExitCode(7)

    /// The table for `--help`.
    static let help = """
        Exit codes: 0 success; 1 the operation failed; 2 invalid input (unknown media or chapter,
        a source that cannot be enqueued, a duplicate) or configuration; 3 the database is
        unreachable; 4 the database schema is missing or out of date (run `steno migrate`);
        64 the command line itself is malformed.
        """

    static let waitHelp = """
        \(help)
        steno wait also exits 5 when a media failed, 6 when one was cancelled or deleted
        (5 wins over 6), and 7 when --timeout ran out first.
        """
}
