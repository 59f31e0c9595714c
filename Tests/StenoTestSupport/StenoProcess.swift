import Foundation

/// Runs a built Steno executable as a user would, and captures what it printed.
public enum StenoProcess {
    /// `steno ARGUMENTS`, with `STENO_DATABASE_URL` removed from the environment unless given.
    public static func run(
        _ arguments: [String], executable: String = "steno", environment: [String: String] = [:], timeLimit: Duration = .seconds(300)
    ) async throws -> ChildProcess {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "STENO_DATABASE_URL")
        merged.merge(environment) { $1 }
        return try await ChildProcess.run(PackageRoot.product(executable).path, arguments, environment: merged, timeLimit: timeLimit)
    }
}
