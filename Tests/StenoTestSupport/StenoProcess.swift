import Foundation

/// Runs a built Steno executable as a user would, and captures what it printed.
public enum StenoProcess {
    /// `steno ARGUMENTS`, with `STENO_DATABASE_URL` removed from the environment unless given.
    ///
    /// The CLI waits 10 s for its database by default, which is one libpq attempt
    /// (`connect_timeout` is 10 s too), and the test server shared by dozens of tests at once
    /// can take that long to answer on a loaded machine. The tests are about what a command does
    /// once connected, so it waits a minute unless the test says otherwise (`environment`, or
    /// `--connect-window`, which wins over the variable).
    public static func run(
        _ arguments: [String], executable: String = "steno", environment: [String: String] = [:], timeLimit: Duration = .seconds(300)
    ) async throws -> ChildProcess {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "STENO_DATABASE_URL")
        merged["STENO_DATABASE_WAIT_SECONDS"] = "60"
        merged.merge(environment) { $1 }
        return try await ChildProcess.run(PackageRoot.product(executable).path, arguments, environment: merged, timeLimit: timeLimit)
    }
}
