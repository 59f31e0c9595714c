import ArgumentParser
import StenoMedia
import StenoPostgres

/// Turns an error into a one-line message on stderr and a documented exit code; no stack traces.
enum CLIFailure {
    static func exit(for error: any Error) -> ExitCode {
        if let exitCode = error as? ExitCode {
            return exitCode
        }
        if let error = error as? AdminError {
            printError("error: \(error)")
            switch error.code {
            case .schemaOutdated: return StenoExitCode.schemaOutdated
            case .notFound, .invalidInput, .duplicateSource: return StenoExitCode.invalidInput
            default: return StenoExitCode.failed
            }
        }
        if let error = error as? PostgresError {
            printError("error: \(error)")
            switch error.code {
            case .connectionFailed, .connectionLost: return StenoExitCode.databaseUnreachable
            case .invalidConfiguration: return StenoExitCode.invalidInput
            case .serverError where error.sqlState == PostgresError.undefinedTable || error.sqlState == undefinedColumn:
                printError("hint: the database schema is missing or out of date; run `steno migrate`")
                return StenoExitCode.schemaOutdated
            default: return StenoExitCode.failed
            }
        }
        if let error = error as? MediaError {
            // The media cannot be used as it is: exit 1 with the plain reason on one line.
            printError("error: \(error)")
            return ExitCode(1)
        }
        printError("error: \(error)")
        return StenoExitCode.failed
    }

    /// Runs a command's body, turning any failure into its message and exit code.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            throw exit(for: error)
        }
    }

    static func printError(_ line: String) {
        var standardError = StandardError()
        print(line, to: &standardError)
    }

    private static let undefinedColumn = "42703"
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandleOutput.standardError(string)
    }
}
