import Foundation
import StenoInfrastructure
public import Logging
import Synchronization

/// One database session.
///
/// Every libpq call runs in its turn on the connection's own thread (`BlockingThread`), never on
/// Swift's cooperative pool nor on libdispatch's bounded one: on that thread, or in place when the
/// caller is on one of its client's `DatabaseThreads`. A session the server closed while it was idle (a restart, a failover,
/// `pg_terminate_backend`) is noticed before the next call and replaced, so that call succeeds.
/// A connection that breaks during a call or a transaction fails that call with
/// `connectionLost`, and the next call reconnects with backoff for up to `reconnectWindow`.
/// Cancelling the calling task cancels the statement on the server.
///
/// A connection runs one call at a time; `PostgresClient` hands each to one task at a time.
public final class PostgresConnection: @unchecked Sendable {
    // @unchecked: `handle`, `generationInTurn` and `transactionSession` are touched only in the
    // connection's turn on `thread`.
    private let thread: BlockingThread
    private var handle: LibPQConnectionHandle?
    private var generationInTurn = 0
    /// The session (`generationInTurn`) in which `withTransaction` opened the transaction now
    /// open, nil outside one. Its statements must run in that session or fail: once the session
    /// is gone, the server has rolled the transaction back, and a statement sent in a new
    /// session would commit on its own (and the closing COMMIT would only warn).
    private var transactionSession: Int?
    public let configuration: PostgresConfiguration
    let logger: Logger
    /// The pool's threads, on which a call runs where it is instead of hopping to `thread`.
    private let databaseThreads: DatabaseThreads?
    /// Calls that ran in place, on a database thread (for tests).
    let callsInPlace = Atomic<Int>(0)
    /// Statements waiting for their turn on the connection's thread (for tests).
    let waitingStatements = Atomic<Int>(0)
    /// Attempts to open a session, successful or not (for tests).
    let connectionAttempts = Atomic<Int>(0)

    public convenience init(configuration: PostgresConfiguration, logger: Logger = Logger(label: "steno.postgres")) {
        self.init(configuration: configuration, logger: logger, databaseThreads: nil)
    }

    init(configuration: PostgresConfiguration, logger: Logger, databaseThreads: DatabaseThreads?) {
        self.configuration = configuration
        self.logger = logger
        self.thread = BlockingThread(name: "steno.postgres.connection")
        self.databaseThreads = databaseThreads
    }

    /// Opens a connection now, so that a bad configuration shows at start-up.
    public static func connect(
        configuration: PostgresConfiguration, logger: Logger = Logger(label: "steno.postgres")
    ) async throws(PostgresError) -> PostgresConnection {
        let connection = PostgresConnection(configuration: configuration, logger: logger)
        _ = try await connection.run { _ in () }
        return connection
    }

    /// Runs one statement and returns its rows; prepared once per session when the query says so.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws(PostgresError) -> PostgresRows {
        try await run { handle throws(PostgresError) in
            query.isPrepared
                ? try handle.executePrepared(query.sql, parameters: query.bindings)
                : try handle.execute(query.sql, parameters: query.bindings)
        }
    }

    /// Runs one statement written with positional placeholders (`$1`, ...), unprepared: for ad-hoc
    /// SQL such as tests and reports. Steno's own statements are `PostgresQuery`s.
    @discardableResult
    public func query(_ statement: String, _ parameters: [any PostgresEncodable]) async throws(PostgresError) -> PostgresRows {
        try await query(PostgresQuery(sql: statement, parameters: parameters))
    }

    /// Runs a multi-statement script with no parameters. Only for Steno's own migration files.
    func executeScript(_ script: String) async throws(PostgresError) {
        try await run { handle throws(PostgresError) in try handle.executeScript(script) }
    }

    /// Runs `body` inside `BEGIN ... COMMIT`, rolling back when it throws. Every statement of the
    /// transaction runs in the session that began it: a session lost on the way fails the next
    /// statement (and the COMMIT) with `connectionLost`, never carries on in a new session.
    public func withTransaction<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await run { handle throws(PostgresError) in
            _ = try handle.execute("BEGIN", parameters: [])
            self.transactionSession = self.generationInTurn
        }
        let result: Result
        do {
            result = try await body(self)
        } catch {
            await rollback()
            throw error
        }
        do {
            try await endTransaction("COMMIT", honouringCancellation: true)
        } catch {
            // A COMMIT that was never sent (the task was cancelled first) leaves the transaction
            // open, with its locks, on a connection the pool hands to the next caller.
            await rollback()
            throw error
        }
        return result
    }

    private func rollback() async {
        do {
            // Runs even when the calling task was cancelled (often why the body threw): a skipped
            // ROLLBACK would hand the next user of this connection an aborted transaction.
            try await endTransaction("ROLLBACK", honouringCancellation: false)
        } catch {
            // A lost connection rolled the transaction back already.
            if error.code != .connectionLost {
                logger.warning("rollback failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Sends COMMIT or ROLLBACK; afterwards, whatever happened, no transaction is open.
    private func endTransaction(_ statement: String, honouringCancellation: Bool) async throws(PostgresError) {
        do {
            try await run(honouringCancellation: honouringCancellation) { handle throws(PostgresError) in
                defer { self.transactionSession = nil }
                _ = try handle.execute(statement, parameters: [])
            }
        } catch {
            // The statement may not have reached the handle (cancelled first, session gone).
            await inTurn { self.transactionSession = nil }
            throw error
        }
    }

    /// A number that changes each time a new server session is opened; session state such as
    /// `LISTEN` or advisory locks does not survive a change.
    public var sessionGeneration: Int {
        get async throws(PostgresError) {
            try await run { _ in self.generationInTurn }
        }
    }

    /// The value this session was opened with for a libpq connection keyword.
    func sessionOption(_ keyword: String) async throws(PostgresError) -> String? {
        try await run { handle in handle.option(keyword) }
    }

    /// Waits up to `timeout` for notifications on the channels this session listens to.
    /// With `session`, the wait is on that session only (a `sessionGeneration`): if it has
    /// ended, the call returns at once with none, instead of waiting on a new session that
    /// listens to nothing. The caller then sees the generation change and listens again.
    func waitForNotifications(timeout: Duration, session: Int? = nil) async throws(PostgresError) -> [PostgresNotification] {
        let milliseconds = Int32(clamping: Int64(timeout.seconds * 1000))
        // Never in place: the wait may last the whole timeout.
        return try await run(inPlace: false) { handle throws(PostgresError) in
            if let session, self.generationInTurn != session { return [] }
            let pending = try handle.drainNotifications()
            if !pending.isEmpty { return pending }
            try handle.waitUntilReadable(timeoutMilliseconds: milliseconds)
            return try handle.drainNotifications()
        }
    }

    /// Closes the session; the next call opens a new one (inside a transaction, the transaction's
    /// next statement fails instead).
    public func close() async {
        await inTurn { self.dropHandle() }
    }

    private func inTurn(_ work: @escaping @Sendable () -> Void) async {
        await thread.run(work)
    }

    /// Runs `body` with a live handle, in its turn: in place when the caller is on one of the
    /// pool's `DatabaseThreads` (and `inPlace` allows it), else on the connection's thread.
    private func run<Result: Sendable>(
        honouringCancellation: Bool = true,
        inPlace: Bool = true,
        _ body: @escaping @Sendable (LibPQConnectionHandle) throws(PostgresError) -> Result
    ) async throws(PostgresError) -> Result {
        if honouringCancellation, Task.isCancelled {
            throw .cancelledBeforeSending()
        }
        let cancelled = CancellationSignal()
        guard honouringCancellation else {
            return try await perform(body, cancelled: cancelled, inPlace: inPlace).get()
        }
        let outcome = await withTaskCancellationHandler {
            await perform(body, cancelled: cancelled, inPlace: inPlace)
        } onCancel: {
            cancelled.cancel()
        }
        return try outcome.get()
    }

    private func perform<Result: Sendable>(
        _ body: @escaping @Sendable (LibPQConnectionHandle) throws(PostgresError) -> Result,
        cancelled: CancellationSignal, inPlace: Bool
    ) async -> Swift.Result<Result, PostgresError> {
        if inPlace, let databaseThreads, databaseThreads.isCurrent {
            // A thread that may block: the call runs on it, with no hop, after whatever the
            // connection's thread holds; but only on an open session. Opening one can block
            // for as long as the server or a name lookup is away, and a caller waiting in place
            // could not leave when cancelled: that goes to the connection's thread.
            let outcome = thread.runInPlaceIfIdle { runInTurn(body, cancelled: cancelled, mayConnect: false, willSend: { true }) } ?? nil
            if let outcome {
                callsInPlace.add(1, ordering: .relaxed)
                return outcome
            }
        }
        waitingStatements.add(1, ordering: .relaxed)
        return await ConnectionCall<Result>().outcome(leavingOn: cancelled) { call in
            thread.async {
                self.waitingStatements.subtract(1, ordering: .relaxed)
                // A caller that left while queued: nothing is sent, and no session is opened for it.
                guard call.isWaiting else { return }
                if let outcome = self.runInTurn(body, cancelled: cancelled, mayConnect: true, willSend: call.willSend) {
                    call.finish(outcome)
                }
            }
        }
    }

    /// Runs `body` on a live session, in the connection's turn. Nil when there is no open
    /// session and `mayConnect` is false, or when `willSend` says the caller left.
    private func runInTurn<Result>(
        _ body: (LibPQConnectionHandle) throws(PostgresError) -> Result,
        cancelled: CancellationSignal, mayConnect: Bool, willSend: () -> Bool
    ) -> Swift.Result<Result, PostgresError>? {
        do throws(PostgresError) {
            guard let handle = try liveHandle(cancelled: cancelled, mayConnect: mayConnect), willSend() else { return nil }
            handle.cancellation = cancelled
            defer { handle.cancellation = nil }
            do throws(PostgresError) {
                return .success(try body(handle))
            } catch {
                if !handle.isConnected {
                    dropHandle()
                }
                if cancelled.isCancelled, error.code == .serverError || error.code == .cancelled {
                    return .failure(PostgresError(.cancelled, "the statement was cancelled because the calling task was", statement: error.statement))
                }
                return .failure(error)
            }
        } catch {
            return .failure(error)
        }
    }

    /// The open handle, or a new one: retried with exponential backoff within `reconnectWindow`.
    /// Nil when the session must be opened and `mayConnect` is false: opening one may block for
    /// as long as the server or a name lookup is away.
    private func liveHandle(cancelled: CancellationSignal, mayConnect: Bool) throws(PostgresError) -> LibPQConnectionHandle? {
        if let session = transactionSession {
            guard let handle, generationInTurn == session, handle.isConnected else {
                throw PostgresError(
                    .connectionLost,
                    "the database session ended inside a transaction; the server rolled the transaction back, and it is not carried on in a new session")
            }
            return handle
        }
        if let handle, handle.isOpenBetweenStatements { return handle }
        guard mayConnect else { return nil }
        if let handle {
            logger.info("the database closed an idle connection; opening a new one", metadata: ["server": "\(handle.serverAddress)"])
        }
        dropHandle()
        if !configuration.connectionString.isEmpty, let problem = LibPQConnectionHandle.parseError(in: configuration.connectionString) {
            throw PostgresError(
                .invalidConfiguration, "the database URL cannot be read: \(configuration.redacting(problem))",
                hint: "fix STENO_DATABASE_URL (or --database-url): a postgres:// URL or a libpq keyword string such as host=db dbname=steno")
        }
        let clock = configuration.clock
        let started = clock.now
        let deadline = started + configuration.reconnectWindow
        var delay = Duration.milliseconds(50)
        var attempt = 0
        while true {
            attempt += 1
            connectionAttempts.add(1, ordering: .relaxed)
            do throws(PostgresError) {
                let handle = try LibPQConnectionHandle(parameters: configuration.libpqParameters, prepares: configuration.preparesStatements)
                // Timestamps are read and written in UTC, ISO format, whatever the server's defaults.
                // No JIT: PostgreSQL compiles a statement when its estimated cost passes
                // `jit_above_cost`, and the estimates of the reporting views and progress reads
                // on a big library pass it although they run in milliseconds to a second: the
                // compilation took 280-800 ms of 0.6-1.7 s (bench/scale). Steno's statements are
                // index reads of bounded size, never the long analytic scans JIT pays off for.
                try handle.executeScript("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD'; SET jit = off")
                self.handle = handle
                generationInTurn += 1
                if attempt > 1 {
                    logger.info("reconnected to the database", metadata: ["server": "\(handle.serverAddress)", "attempts": "\(attempt)"])
                }
                return handle
            } catch {
                let worthRetrying = Self.isWorthRetrying(error)
                if worthRetrying, cancelled.isCancelled {
                    // The caller stopped waiting: that is the answer, not the refusal it was waiting out.
                    throw PostgresError(
                        .cancelled, "cancelled while connecting to the database (after \(attempt) attempt\(attempt == 1 ? "" : "s"))")
                }
                let giveUp = !worthRetrying || clock.now + delay > deadline
                if giveUp {
                    var failure = error
                    failure.code = Self.isConfigurationProblem(error) ? .invalidConfiguration : .connectionFailed
                    failure.message = configuration.redacting(failure.message)
                    if attempt > 1 {
                        let waited = Int((clock.now - started).seconds.rounded())
                        failure.message += " (still failing after \(attempt) attempts in \(waited) s)"
                    }
                    failure.hint = failure.hint
                        ?? (worthRetrying
                            ? "check STENO_DATABASE_URL (or PGHOST, PGPORT, PGDATABASE, PGUSER) and that the server is running; "
                                + "to wait longer for a server that is starting, set \(PostgresConfiguration.waitVariable)"
                            : "check STENO_DATABASE_URL (or PGHOST, PGPORT, PGDATABASE, PGUSER) and the credentials")
                    throw failure
                }
                if attempt == 1 {
                    // Said once, at info: a process started beside its database (compose, Kubernetes)
                    // waits here, and the operator should see why it is not working yet.
                    logger.info("waiting for the database", metadata: [
                        "server": "\(configuration.redactedConnectionString)", "error": "\(configuration.redacting(error.message))",
                        "wait_seconds": "\(Int(configuration.reconnectWindow.seconds))",
                    ])
                }
                logger.debug("database connection failed, retrying", metadata: [
                    "error": "\(configuration.redacting(error.message))", "attempt": "\(attempt)",
                ])
                Self.sleep(for: delay, on: clock)
                delay = min(delay * 2, .seconds(2))
            }
        }
    }

    /// Waits on `clock` from the connection's own thread, which may block (never the
    /// cooperative pool): the continuous clock by sleeping, another clock (a test's) by waiting
    /// for its sleep to end.
    static func sleep(for delay: Duration, on clock: any MonotonicClock) {
        if clock is ContinuousClock {
            Thread.sleep(forTimeInterval: delay.seconds)
            return
        }
        let done = DispatchSemaphore(value: 0)
        Task {
            try? await clock.sleep(for: delay)
            done.signal()
        }
        done.wait()
    }

    private func dropHandle() {
        handle = nil
    }

    /// Settings libpq refuses before it reaches any server: the user must fix them.
    private static let configurationMarkers = [
        "invalid port number", "invalid integer value", "invalid connection option", "invalid sslmode value", "invalid URI",
        "missing \"=\"",
    ]

    private static func isConfigurationProblem(_ error: PostgresError) -> Bool {
        configurationMarkers.contains { error.message.contains($0) }
    }

    /// A refused or reset connection, or a server starting up or shutting down, may heal;
    /// a wrong password, role or database will not.
    private static func isWorthRetrying(_ error: PostgresError) -> Bool {
        let refusedMarkers = [
            "password authentication failed", "no password supplied", "does not exist", "is not permitted to log in",
            "no pg_hba.conf entry", "SSL is not enabled",
        ]
        return !isConfigurationProblem(error) && !refusedMarkers.contains { error.message.contains($0) }
    }
}
