import ArgumentParser
import StenoMedia
import StenoPostgres

/// Turns an error into a one-line message on stderr and a documented exit code; no stack traces.
enum CLIFailure {
    static func exit(for error: any Error) -> ExitCode {
        if let error = error as? PostgresError {
            printError("error: \(error)")
            switch error.code {
            case .connectionFailed, .connectionLost: return ExitCode(3)
            case .invalidConfiguration: return ExitCode(2)
            case .serverError where error.sqlState == PostgresError.undefinedTable:
                printError("hint: the database schema is missing or out of date; run `steno migrate`")
                return ExitCode(4)
            default: return ExitCode(1)
            }
        }
        if let error = error as? MediaError {
            // The media cannot be used as it is: exit 1 with the plain reason on one line.
            printError("error: \(error)")
            return ExitCode(1)
        }
        printError("error: \(error)")
        return ExitCode(1)
    }

    static func printError(_ line: String) {
        var standardError = StandardError()
        print(line, to: &standardError)
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandleOutput.standardError(string)
    }
}
