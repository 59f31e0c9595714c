import ArgumentParser
import Logging
import StenoMedia
import StenoPostgres
import StenoStore

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
            // The driver's own text (SQLSTATE, statement) is for the log; the user reads plain words.
            logger.debug("database failure", metadata: ["error": "\(error)"])
            printError("error: \(error.explanation)")
            switch error.code {
            case .connectionFailed, .connectionLost: return StenoExitCode.databaseUnreachable
            case .invalidConfiguration: return StenoExitCode.invalidInput
            case .serverError where schemaStates.contains(error.sqlState ?? ""): return StenoExitCode.schemaOutdated
            default: return StenoExitCode.failed
            }
        }
        if let error = error as? MediaError {
            // The media cannot be used as it is: exit 1 with the plain reason on one line.
            printError("error: \(error)")
            return ExitCode(1)
        }
        if isStenoError(error) {
            printError("error: \(error)")
            return StenoExitCode.failed
        }
        // Anything else (Foundation, the standard library) is a bug: its text means nothing to
        // the user, so it goes to the log and the message says how to see it.
        logger.error("unexpected failure", metadata: ["error": "\(String(reflecting: error))"])
        printError("error: an unexpected failure inside steno (\(type(of: error))); run again with STENO_LOG_LEVEL=debug and report what it prints")
        return StenoExitCode.failed
    }

    /// Errors of Steno's own modules write a `description` that is safe and meant for people.
    private static func isStenoError(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)).hasPrefix("Steno")
    }

    /// Runs a command's body, turning any failure into its message and exit code.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ValidationError {
            throw error  // the parser prints it with the usage line and exits 64
        } catch {
            throw exit(for: error)
        }
    }

    /// One line, whatever the message quotes: a file name or a backend's message may hold
    /// escape sequences or newlines.
    static func printError(_ line: String) {
        var standardError = StandardError()
        print(TerminalText.safe(line), to: &standardError)
    }

    /// SQLSTATEs that mean the schema is older than the code: undefined table, column, function, object.
    private static let schemaStates: Set<String> = [PostgresError.undefinedTable, "42703", "42883", "42704"]
    private static let logger = Logger(label: "steno")
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandleOutput.standardError(string)
    }
}
