public import Foundation
import Logging

/// Logging for the admin CLI: to stderr, quiet by default so that output stays readable and
/// scriptable; `STENO_LOG_LEVEL` (trace, debug, info, notice, warning, error) asks for more.
public enum CLILogging {
    public static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let level = environment["STENO_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
