import Foundation

/// What a database failure means to the person running Steno, in plain words with what to do.
///
/// `description` is for operators' logs (SQLSTATE, statement, server). What a user reads, on the
/// CLI or as a media's failure reason, is `explanation`: no SQL, no driver jargon. The mapping
/// goes by SQLSTATE class, so a state not listed here still gets its class's sentence.
extension PostgresError {
    public var explanation: String {
        switch code {
        case .invalidConfiguration, .migrationFailed:
            // Written by Steno itself (and redacted); they already name the setting or file.
            return oneLine(message) + (hint.map { "; \($0)" } ?? "")
        case .connectionFailed:
            return "cannot reach the database: " + oneLine(message) + (hint.map { "; \($0)" } ?? "")
        case .connectionLost:
            return "the connection to the database broke while a command ran, so its outcome is unknown: "
                + "check with `steno status` and run the command again"
        case .decodingFailed:
            return "the database returned data this Steno cannot read: check `steno migrate --status` "
                + "and that every process runs the same Steno version"
        case .cancelled:
            return "the database command was interrupted"
        case .clientClosed:
            return "the database connection was already closed (Steno was shutting down)"
        default:
            return Self.explainServerError(sqlState: sqlState)
        }
    }

    /// libpq writes multi-line messages ("...failed: Connection refused\n\tIs the server running...").
    private func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    static func explainServerError(sqlState: String?) -> String {
        guard let sqlState, sqlState.count == 5 else {
            return "the database rejected a command: run again with STENO_LOG_LEVEL=debug to see the details"
        }
        switch sqlState {
        case undefinedTable, "42703", "42883", "42704":
            return "the database schema is missing or older than this Steno: run `steno migrate`"
        case "42501":
            return "the database role in use may not do this: connect as steno_admin (or as the database owner to migrate)"
        case "3D000":
            return "the database named in STENO_DATABASE_URL does not exist: create it or fix the name"
        case "40001", "40P01":
            return "the command collided with a worker's change and was rolled back, so nothing changed: run it again"
        case "25006":
            return "the database is read-only (a standby?): point STENO_DATABASE_URL at the primary"
        case "57014":
            return "a database command took too long and was cancelled: run it again; if it keeps happening, "
                + "check the server's load and statement_timeout"
        case uniqueViolation:
            return "the change conflicts with a row that already exists, so nothing changed: check with `steno list` and run it again"
        default:
            break
        }
        switch sqlState.prefix(2) {
        case "08", "57":
            return "the database restarted or is shutting down: run the command again when it is back"
        case "28":
            return "the database refused the login: check the user and password in STENO_DATABASE_URL (or PGPASSWORD)"
        case "53":
            return "the database server is out of resources (connections, disk or memory): ask its operator, then run again"
        case "23":
            return "the database refused a change that breaks its rules, so nothing changed: check `steno migrate --status`"
        case "22":
            return "a value was out of range for the database, so nothing changed: check the numbers and text given"
        default:
            return "the database rejected a command (SQLSTATE \(sqlState)), so nothing changed: run `steno migrate --status`, "
                + "then again with STENO_LOG_LEVEL=debug and report what it logs"
        }
    }
}
