public import Foundation
import Logging

/// How Steno's servers log: plain lines for a person at a terminal, JSON lines for a log
/// collector otherwise, at `STENO_LOG_LEVEL` (default info).
public enum StenoLogging {
    public static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let level = Logger.Level(rawValue: environment["STENO_LOG_LEVEL"] ?? "info") ?? .info
        let terminal = isatty(STDERR_FILENO) == 1
        LoggingSystem.bootstrap { label in
            if terminal {
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            return JSONLogHandler(label: label, logLevel: level)
        }
    }
}
