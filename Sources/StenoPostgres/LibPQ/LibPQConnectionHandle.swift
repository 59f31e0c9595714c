import CLibPQ
import Foundation
import StenoInfrastructure

/// Owns one `PGconn`, finished in `deinit`.
///
/// Not thread-safe: a `PostgresConnection` uses it only in its turn on its own thread.
final class LibPQConnectionHandle {
    let pointer: OpaquePointer
    /// The statements prepared on this session, by text: the name each was prepared under.
    private var preparedNames: [String: String] = [:]
    /// Names are numbered in the order they are made, never reused: a statement prepared again
    /// after a `DEALLOCATE` gets a name no other statement of the session has.
    private var preparedCount = 0
    /// Beyond this many, statements run unprepared: a caller building texts on the fly must not
    /// fill the server's memory with plans.
    static let preparedLimit = 256
    /// Whether statements are prepared by name: not behind a pooler in transaction mode, where
    /// the next transaction may run on a server session that never saw the name.
    private let prepares: Bool
    /// Cancels this session's statement in flight from another thread.
    private let canceller: LibPQCancelHandle?
    /// The calling task's signal for the call in progress: cancelling it cancels the statement
    /// on the server. Set by the connection around each call.
    var cancellation: CancellationSignal?
    /// The server sent a FATAL (or PANIC) message outside any statement: its goodbye before it
    /// closes the session. The socket may still be open for a moment after that message, so
    /// the goodbye, not the socket, decides whether the session is over.
    private(set) var serverEndedSession = false
    /// libpq's receiver before ours: notices other than a goodbye still go where they went.
    private var previousNoticeReceiver: PQnoticeReceiver?

    /// Checks that libpq can parse a URL or keyword string, without connecting: a malformed one
    /// is a configuration error to report at once, not an unreachable server to wait for.
    /// Returns libpq's message (which may quote the string whole: the caller redacts it).
    static func parseError(in connectionString: String) -> String? {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &message) else {
            defer { if let message { PQfreemem(message) } }
            return message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "libpq cannot parse it"
        }
        PQconninfoFree(options)
        return nil
    }

    /// Connects (blocking) with `PQconnectdbParams`, expanding `dbname` as a URL or keyword string.
    init(parameters: [(keyword: String, value: String)], prepares: Bool = true) throws(PostgresError) {
        self.prepares = prepares
        let keywords = parameters.map { strdup($0.keyword) }
        let values = parameters.map { strdup($0.value) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        var keywordPointers = keywords.map { UnsafePointer<CChar>($0) } + [nil]
        var valuePointers = values.map { UnsafePointer<CChar>($0) } + [nil]
        guard let connection = PQconnectdbParams(&keywordPointers, &valuePointers, 1) else {
            throw PostgresError(.connectionFailed, "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = LibPQConnectionHandle.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(.connectionFailed, message)
        }
        self.pointer = connection
        self.canceller = LibPQCancelHandle(connection: connection)
        // Unretained: the receiver is called only from this handle's own libpq calls, and the
        // connection is finished in this handle's `deinit`.
        previousNoticeReceiver = PQsetNoticeReceiver(
            connection,
            { argument, result in
                guard let argument, let result else { return }
                let handle = Unmanaged<LibPQConnectionHandle>.fromOpaque(argument).takeUnretainedValue()
                handle.receiveNotice(result)
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    private func receiveNotice(_ result: OpaquePointer) {
        let severity = PQresultErrorField(result, steno_pg_diag_severity).map { String(cString: $0) }
        if severity == "FATAL" || severity == "PANIC" {
            // Handled: the next call opens a new session. Not printed to standard error, where
            // a worker's structured log would get a bare line.
            serverEndedSession = true
            return
        }
        // The default receiver ignores its argument and hands the text to the notice processor.
        previousNoticeReceiver?(nil, result)
    }

    deinit {
        PQfinish(pointer)
    }

    var isConnected: Bool { PQstatus(pointer) == CONNECTION_OK && !serverEndedSession }

    /// Whether a session between statements is still open, found without a round trip. A server
    /// that restarted, failed over or ended the session (`pg_terminate_backend`, an idle timeout)
    /// has sent its goodbye and closed the socket while nobody was reading; without this look,
    /// the next statement would be the one to fail. Inside a transaction it only reports the
    /// status: a lost transaction must fail its next statement, not carry on in a new session.
    var isOpenBetweenStatements: Bool {
        guard isConnected else { return false }
        guard PQtransactionStatus(pointer) == PQTRANS_IDLE else { return true }
        // A few reads at most: the server's last message, then the end of the stream. What a
        // live session has pending (notifications) stays in libpq's buffers for its reader.
        // A closed socket polls as readable (or hung up), and reading it makes PQconsumeInput
        // fail. A goodbye read before the socket closed is parsed (`PQisBusy`) so that its
        // FATAL reaches the notice receiver: the session is over even while the socket is open.
        for _ in 0..<4 {
            guard pollInput(timeoutMilliseconds: 0) > 0 else { return true }
            guard PQconsumeInput(pointer) == 1 else { return false }
            _ = PQisBusy(pointer)
            guard isConnected else { return false }
        }
        return isConnected
    }

    /// The value the session was opened with for a connection `keyword` (`PQconninfo`).
    func option(_ keyword: String) -> String? {
        guard let options = PQconninfo(pointer) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    var errorMessage: String { LibPQConnectionHandle.trimmed(PQerrorMessage(pointer)) }

    var socket: Int32 { PQsocket(pointer) }

    /// `host:port/database` of the live connection; never the password.
    var serverAddress: String {
        let host = PQhost(pointer).map { String(cString: $0) } ?? "?"
        let port = PQport(pointer).map { String(cString: $0) } ?? "?"
        let database = PQdb(pointer).map { String(cString: $0) } ?? "?"
        return "\(host):\(port)/\(database)"
    }

    /// Runs one parameterised statement (extended protocol, text format), blocking.
    func execute(_ statement: String, parameters: [String?]) throws(PostgresError) -> PostgresRows {
        try exchange(statement) {
            withParameters(parameters) { values, count in PQsendQueryParams(pointer, statement, count, nil, values, nil, nil, 0) }
        }.rows()
    }

    /// Runs one statement prepared on this session, preparing it on first use. PostgreSQL then
    /// parses and plans it once, not on every call.
    func executePrepared(_ statement: String, parameters: [String?]) throws(PostgresError) -> PostgresRows {
        do throws(PostgresError) {
            return try runPrepared(statement, parameters: parameters)
        } catch where error.sqlState == "0A000" && isConnected {
            // "cached plan must not change result type": a migration changed a table under a
            // `SELECT *` this session prepared. Prepared again, it sees the new columns.
            if let name = preparedNames.removeValue(forKey: statement) {
                _ = try? exchange("DEALLOCATE") { PQsendQuery(pointer, "DEALLOCATE \(name)") }
            }
            return try runPrepared(statement, parameters: parameters)
        }
    }

    /// `statement` under its prepared name, prepared now if need be; unprepared once the
    /// session holds `preparedLimit` statements.
    private func runPrepared(_ statement: String, parameters: [String?]) throws(PostgresError) -> PostgresRows {
        guard let name = try preparedName(of: statement, parameterCount: parameters.count) else {
            return try execute(statement, parameters: parameters)
        }
        return try exchange(statement) {
            withParameters(parameters) { values, count in PQsendQueryPrepared(pointer, name, count, values, nil, nil, 0) }
        }.rows()
    }

    private func preparedName(of statement: String, parameterCount: Int) throws(PostgresError) -> String? {
        if let name = preparedNames[statement] { return name }
        guard prepares, preparedNames.count < Self.preparedLimit else { return nil }
        preparedCount += 1
        let name = "steno_\(preparedCount)"
        _ = try exchange(statement) { PQsendPrepare(pointer, name, statement, Int32(parameterCount), nil) }
        preparedNames[statement] = name
        return name
    }

    /// Calls `body` with the parameters as C strings (NULL for SQL NULL) and their count, freed after.
    private func withParameters(
        _ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> Int32
    ) -> Int32 {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let values = copies.map { UnsafePointer<CChar>($0) }
        return values.withUnsafeBufferPointer { buffer in body(buffer.baseAddress, Int32(buffer.count)) }
    }

    /// Runs a script of several statements with the simple protocol, blocking.
    /// Only for migration files shipped with Steno: it takes no parameters.
    func executeScript(_ script: String) throws(PostgresError) {
        _ = try exchange(script) { PQsendQuery(pointer, script) }
    }

    /// Sends a statement with `send` (a `PQsend...` call) and waits for its result, as `PQexec`
    /// does, but watching `cancellation`: a statement cancelled before it is sent is not sent,
    /// and one cancelled while it runs is cancelled on the server.
    private func exchange(_ statement: String, send: () -> Int32) throws(PostgresError) -> LibPQResult {
        if let cancellation, cancellation.isCancelled {
            throw .cancelledBeforeSending(server: serverAddress, statement: PostgresError.summary(of: statement))
        }
        guard send() == 1 else { throw connectionError(statement: statement) }
        // Registered once the statement is on the wire, so that a cancel which came earlier is
        // sent now rather than lost.
        let number = canceller?.statementSent()
        let registration = number.flatMap { number in
            cancellation?.onCancel { [canceller] in canceller?.cancel(statement: number) }
        }
        defer {
            if let registration { cancellation?.removeHandler(registration) }
            canceller?.statementEnded()
        }
        var last: LibPQResult?
        while true {
            try awaitResult(statement)
            guard let raw = PQgetResult(pointer) else { break }
            let result = LibPQResult(raw)
            last = result
            // As `PQexec`: a copy waits for data that never comes, and a broken connection for
            // results that never come.
            let status = result.status
            if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH || !isConnected { break }
        }
        return try check(last, statement: statement)
    }

    /// Reads until the next result is complete.
    private func awaitResult(_ statement: String) throws(PostgresError) {
        while PQisBusy(pointer) == 1 {
            try waitUntilReadable(timeoutMilliseconds: -1, statement: statement)
            // A broken connection: `PQgetResult` reports it as an error result.
            guard PQconsumeInput(pointer) == 1 else { return }
        }
    }

    /// The one place where libpq's result codes are checked.
    private func check(_ result: LibPQResult?, statement: String) throws(PostgresError) -> LibPQResult {
        guard let result else {
            throw connectionError(statement: statement)
        }
        switch result.status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        default:
            if !isConnected {
                throw connectionError(statement: statement)
            }
            let sqlState = result.errorField(steno_pg_diag_sqlstate)
            let message = result.errorField(steno_pg_diag_message_primary) ?? errorMessage
            let code: PostgresError.Code = sqlState == "57014" ? .cancelled : .serverError
            throw PostgresError(
                code, message, sqlState: sqlState,
                detail: result.errorField(steno_pg_diag_message_detail),
                hint: result.errorField(steno_pg_diag_message_hint),
                server: serverAddress, statement: PostgresError.summary(of: statement))
        }
    }

    private func connectionError(statement: String) -> PostgresError {
        let message = errorMessage
        return PostgresError(
            .connectionLost,
            message.isEmpty ? "the connection to the server was lost" : message,
            server: serverAddress, statement: PostgresError.summary(of: statement))
    }

    /// Reads what the socket holds and returns the notifications received, without blocking.
    func drainNotifications() throws(PostgresError) -> [PostgresNotification] {
        guard PQconsumeInput(pointer) == 1 else {
            throw PostgresError(.connectionLost, errorMessage, server: serverAddress)
        }
        var notifications: [PostgresNotification] = []
        while let raw = PQnotifies(pointer) {
            let notify = raw.pointee
            notifications.append(
                PostgresNotification(
                    channel: String(cString: notify.relname),
                    payload: String(cString: notify.extra),
                    senderProcessID: notify.be_pid))
            PQfreemem(raw)
        }
        return notifications
    }

    /// Blocks until the socket is readable, the timeout passes (-1: none) or a signal arrives.
    func waitUntilReadable(timeoutMilliseconds: Int32, statement: String? = nil) throws(PostgresError) {
        if pollInput(timeoutMilliseconds: timeoutMilliseconds) < 0 && errno != EINTR {
            throw PostgresError(
                .connectionLost, "poll on the database socket failed: errno \(errno)",
                server: serverAddress, statement: statement.map(PostgresError.summary(of:)))
        }
    }

    /// `poll` for input on the socket: above 0 when it is readable or hung up, 0 when the
    /// timeout passed, below 0 on failure (`errno`).
    private func pollInput(timeoutMilliseconds: Int32) -> Int32 {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, timeoutMilliseconds)
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
