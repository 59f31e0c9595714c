/// A database error with a stable code and the context an operator needs.
///
/// `description` is safe to log: it never contains a password, a connection string,
/// or a statement's parameter values.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }

        /// The configuration (URL, keyword string, password file) cannot be used.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// No connection could be made within the retry window.
        public static let connectionFailed = Code(rawValue: "connection_failed")
        /// The connection broke while a statement ran; the statement's outcome is unknown.
        public static let connectionLost = Code(rawValue: "connection_lost")
        /// The server rejected the statement; `sqlState` says why.
        public static let serverError = Code(rawValue: "server_error")
        /// A column did not hold what the caller asked for.
        public static let decodingFailed = Code(rawValue: "decoding_failed")
        /// The calling task was cancelled; the server was asked to cancel the statement.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The client was shut down.
        public static let clientClosed = Code(rawValue: "client_closed")
        /// A migration file is missing, malformed, or differs from the applied one.
        public static let migrationFailed = Code(rawValue: "migration_failed")
    }

    public var code: Code
    public var message: String
    /// The five-character SQLSTATE of a server error, such as `23505` for a unique violation.
    public var sqlState: String?
    public var detail: String?
    public var hint: String?
    /// `host:port/database`, never the credentials.
    public var server: String?
    /// The first line of the statement, for context; parameters are never part of it.
    public var statement: String?

    public init(
        _ code: Code, _ message: String, sqlState: String? = nil, detail: String? = nil,
        hint: String? = nil, server: String? = nil, statement: String? = nil
    ) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.server = server
        self.statement = statement
    }

    public var description: String {
        var text = "postgres \(code): \(message)"
        if let sqlState { text += " [SQLSTATE \(sqlState)]" }
        if let hint { text += " (hint: \(hint))" }
        if let server { text += " (server \(server))" }
        if let statement { text += " (statement: \(statement))" }
        return text
    }

    /// Whether the same call may succeed if made again: the connection broke, or the server
    /// was starting, shutting down, or resolved a conflict by aborting this transaction.
    public var isTransient: Bool {
        switch code {
        case .connectionLost, .connectionFailed: return true
        case .serverError:
            guard let sqlState else { return false }
            // 40001 serialization failure, 40P01 deadlock, 57P01..03 admin shutdown / crash / cannot connect now, 08xxx connection exceptions.
            return ["40001", "40P01", "57P01", "57P02", "57P03"].contains(sqlState) || sqlState.hasPrefix("08")
        default: return false
        }
    }

    public static let uniqueViolation = "23505"
    public static let undefinedTable = "42P01"
}

extension PostgresError {
    /// The calling task was cancelled before the statement went out: nothing reached the server.
    static func cancelledBeforeSending(server: String? = nil, statement: String? = nil) -> PostgresError {
        PostgresError(.cancelled, "the calling task was cancelled before the statement was sent", server: server, statement: statement)
    }

    /// The statement's first line, trimmed, for error context.
    static func summary(of statement: String) -> String {
        let trimmed = statement.drop { $0 == " " || $0 == "\n" || $0 == "\t" }
        let firstLine = trimmed.prefix { $0 != "\n" }
        return firstLine.count > 120 ? String(firstLine.prefix(117)) + "..." : String(firstLine)
    }
}
