import Foundation
import StenoInfrastructure
import StenoTestSupport
import Testing

@testable import StenoPostgres
import Synchronization

@Suite("PostgresConnection", .timeLimit(.minutes(2)))
struct PostgresConnectionTests {
    @Test("parameters and columns round-trip every supported type")
    func roundTrip() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let moment = Date(timeIntervalSince1970: 1_795_000_000.123456)
            let text = "quote \" backslash \\ comma , brace { unicode é 日本"
            let row = try await connection.query(
                """
                SELECT \(Int64.max)::bigint AS big, \(text)::text AS text, \(true)::boolean AS flag, \(0.1)::float8 AS real,
                       \(moment)::timestamptz AS moment, \([Int64(1), -2, 3])::bigint[] AS ids, \(["a b", "c,d", "\"q\"", ""])::text[] AS names, \(String?.none)::text AS missing,
                       \(Int32.min)::integer AS small
                """
            ).single()
            #expect(try row.decode("big", as: Int64.self) == Int64.max)
            #expect(try row.decode("text", as: String.self) == text)
            #expect(try row.decode("flag", as: Bool.self) == true)
            #expect(try row.decode("real", as: Double.self) == 0.1)
            let decodedMoment = try row.decode("moment", as: Date.self)
            #expect(abs(decodedMoment.timeIntervalSince(moment)) < 0.000_001)
            #expect(try row.decode("ids", as: [Int64].self) == [1, -2, 3])
            #expect(try row.decode("names", as: [String].self) == ["a b", "c,d", "\"q\"", ""])
            #expect(try row.decode("missing", as: String?.self) == nil)
            #expect(try row.decode("small", as: Int32.self) == Int32.min)
            await connection.close()
        }
    }

    @Test("NULL in a non-optional column, a missing column and a wrong type are decoding errors")
    func decodingErrors() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let row = try await connection.query("SELECT NULL::text AS empty, 'x' AS letter").single()
            #expect(throws: PostgresError.self) { try row.decode("empty", as: String.self) }
            #expect(throws: PostgresError.self) { try row.decode("absent", as: String.self) }
            let error = #expect(throws: PostgresError.self) { try row.decode("letter", as: Int.self) }
            #expect(error?.code == .decodingFailed)
            #expect(error?.description.contains("x") == false, "the value itself stays out of the message")
            await connection.close()
        }
    }

    @Test("a server error carries its SQLSTATE and the statement, and the connection stays usable")
    func serverError() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            try await connection.query("CREATE TABLE t (id integer PRIMARY KEY)")
            try await connection.query("INSERT INTO t VALUES (\(1))")
            let error = await #expect(throws: PostgresError.self) {
                try await connection.query("INSERT INTO t VALUES (\(1))")
            }
            #expect(error?.code == .serverError)
            #expect(error?.sqlState == PostgresError.uniqueViolation)
            #expect(error?.statement == "INSERT INTO t VALUES ($1)")
            let count = try await connection.query("SELECT count(*) AS n FROM t").single().decode("n", as: Int.self)
            #expect(count == 1)
            await connection.close()
        }
    }

    @Test("a transaction commits, or rolls back everything when its body throws")
    func transactions() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let client = database.client()
            try await client.query("CREATE TABLE t (id integer PRIMARY KEY)")
            try await client.withTransaction { connection in
                try await connection.query("INSERT INTO t VALUES (1)")
                try await connection.query("INSERT INTO t VALUES (2)")
            }
            await #expect(throws: PostgresError.self) {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO t VALUES (3)")
                    try await connection.query("INSERT INTO t VALUES (1)")
                }
            }
            let ids = try await client.query("SELECT id FROM t ORDER BY id").map { try $0.decode("id", as: Int.self) }
            #expect(ids == [1, 2])
            await client.shutdown()
        }
    }

    @Test("cancelling the calling task cancels the statement on the server at once")
    func cancellation() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            // Longer than the suite's time limit: only the cancel can end it.
            let sleeper = Task { try await connection.query("SELECT pg_sleep(3600)") }
            try await database.configuration.waitUntilRunning("SELECT pg_sleep")
            sleeper.cancel()
            let outcome = await sleeper.result
            #expect(throws: PostgresError.self) { try outcome.get() }
            if case .failure(let error as PostgresError) = outcome {
                #expect(error.code == .cancelled)
            }
            let one = try await connection.query("SELECT 1 AS one").single().decode("one", as: Int.self)
            #expect(one == 1)
            await connection.close()
        }
    }

    @Test("a statement cancelled while it waits its turn is never sent, and the statement ahead of it is not cancelled")
    func cancelBeforeSending() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let observer = try await PostgresConnection.connect(configuration: database.configuration)
            // The statement ahead waits on a lock the observer holds, for as long as the test
            // wants: no race with a sleep on the server.
            try await observer.query("SELECT pg_advisory_lock(7)")
            let ahead = Task { try await connection.query("SELECT pg_advisory_lock(7), 'finished' AS outcome") }
            try await poll(until: {
                try await observer.query(
                    """
                    SELECT count(*) AS n FROM pg_locks
                    WHERE locktype = 'advisory' AND objid = 7 AND NOT granted
                      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """
                ).single().decode("n", as: Int.self) == 1
            }, "the statement ahead waiting on the server")
            let queued = Task { try await connection.query("CREATE TABLE sent (id integer)") }
            try await poll(until: { connection.waitingStatements.load(ordering: .relaxed) == 1 }, "the next statement waiting its turn")
            queued.cancel()
            try await observer.query("SELECT pg_advisory_unlock(7)")
            let queuedOutcome = await queued.result
            let aheadOutcome = try await ahead.value.single().decode("outcome", as: String.self)
            #expect(aheadOutcome == "finished")
            guard case .failure(let error as PostgresError) = queuedOutcome else {
                Issue.record("the cancelled statement ran: \(queuedOutcome)")
                return
            }
            #expect(error.code == .cancelled)
            let table = try await connection.query("SELECT to_regclass('sent')::text AS name").single().decode("name", as: String?.self)
            #expect(table == nil, "the cancelled statement never reached the server")
            await connection.close()
            await observer.close()
        }
    }

    @Test("a caller cancelled while the session is being opened leaves at once, and so does one queued behind it")
    func cancelWhileConnecting() async throws {
        // A server whose connect never completes: each attempt lasts its connect timeout, set
        // far beyond the suite's time limit, so only leaving can end the calls in time.
        let listener = try UnacceptingListener()
        let configuration = PostgresConfiguration(
            connectionString: "postgres://steno@127.0.0.1:\(listener.port)/steno", connectTimeout: .seconds(3600),
            reconnectWindow: .seconds(3600))
        let connection = PostgresConnection(configuration: configuration)
        let connecting = Task { try await connection.query("SELECT 1 AS n") }
        try await poll(until: { connection.connectionAttempts.load(ordering: .relaxed) == 1 }, "the first attempt to connect")
        let queued = Task { try await connection.query("SELECT 2 AS n") }
        try await poll(until: { connection.waitingStatements.load(ordering: .relaxed) == 1 }, "the second call waiting its turn")
        connecting.cancel()
        queued.cancel()
        for outcome in [await connecting.result, await queued.result] {
            guard case .failure(let error as PostgresError) = outcome else {
                Issue.record("a cancelled call did not fail: \(outcome)")
                continue
            }
            #expect(error.code == .cancelled)
            #expect(error.message.contains("before the statement was sent"), "\(error)")
        }
        #expect(connection.connectionAttempts.load(ordering: .relaxed) == 1, "no attempt was made for the caller that left")
    }

    @Test("a cancel the server drops is sent again while the statement still runs")
    func cancelSentAgain() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            // The block swallows the first cancel, as the server does with one that arrives before
            // the backend has read the statement.
            let swallowed = """
                DO $$ BEGIN
                  BEGIN PERFORM pg_sleep(3600); EXCEPTION WHEN query_canceled THEN NULL; END;
                  PERFORM pg_sleep(3600);
                END $$
                """
            let sleeper = Task { try await connection.query(swallowed, []) }
            try await database.configuration.waitUntilRunning("DO $$")
            sleeper.cancel()
            let outcome = await sleeper.result
            guard case .failure(let error as PostgresError) = outcome else {
                Issue.record("the statement was not cancelled: \(outcome)")
                return
            }
            #expect(error.code == .cancelled)
            let one = try await connection.query("SELECT 1 AS one").single().decode("one", as: Int.self)
            #expect(one == 1)
            await connection.close()
        }
    }

    @Test("a task cancelled inside a transaction rolls it back, and the pooled connection is clean for the next user")
    func cancelledTransactionRollsBack() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let client = database.client(maxConnections: 1)
            try await client.query("CREATE TABLE t (id integer PRIMARY KEY)")
            let transaction = Task {
                try await client.withTransaction { connection in
                    try await connection.query("INSERT INTO t VALUES (1)")
                    try await connection.query("SELECT pg_sleep(3600)")
                }
            }
            try await database.configuration.waitUntilRunning("SELECT pg_sleep")
            transaction.cancel()
            _ = await transaction.result
            // The same (only) connection: no "current transaction is aborted" (25P02), and no row.
            let count = try await client.query("SELECT count(*) AS n FROM t").single().decode("n", as: Int.self)
            #expect(count == 0)
            await client.shutdown()
        }
    }

    @Test("the pool never lends one connection to two tasks at once")
    func poolExclusivity() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let client = database.client(maxConnections: 3)
            let backends = try await withThrowingTaskGroup(of: [Int32].self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await client.withTransaction { connection in
                            // Inside one transaction the backend must stay the same.
                            let first = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode("pid", as: Int32.self)
                            try await connection.query("SELECT pg_sleep(0.05)")
                            let second = try await connection.query("SELECT pg_backend_pid() AS pid").single().decode("pid", as: Int32.self)
                            return [first, second]
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(backends.allSatisfy { $0[0] == $0[1] })
            #expect(Set(backends.map { $0[0] }).count <= 3)
            await client.shutdown()
        }
    }

    @Test("a URL's password never reaches the redacted form or a connection error")
    func passwordNotLeaked() async throws {
        let password = TestSecret.make("pw")
        let configuration = PostgresConfiguration(
            connectionString: "postgres://steno:\(password)@127.0.0.1:1/steno", reconnectWindow: .milliseconds(200))
        #expect(configuration.redactedConnectionString == "postgres://steno:[redacted]@127.0.0.1:1/steno")
        let error = await #expect(throws: PostgresError.self) {
            _ = try await PostgresConnection.connect(configuration: configuration)
        }
        #expect(error?.code == .connectionFailed)
        #expect(error.map { !"\($0)".contains(password) } == true)
    }

    @Test("an unreachable server is retried with backoff on the given clock until the window closes")
    func reconnectWindowOnTheClock() async throws {
        let clock = ManualClock(advancingOnSleep: true)
        var configuration = PostgresConfiguration(connectionString: "postgres://steno@127.0.0.1:1/steno", reconnectWindow: .seconds(30))
        configuration.clock = clock
        let error = await #expect(throws: PostgresError.self) {
            _ = try await PostgresConnection.connect(configuration: configuration)
        }
        // 50 ms doubling to 2 s, then 2 s apiece, while the next wait ends inside the window.
        let backoff: [Duration] = [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]
            + Array(repeating: .seconds(2), count: 13)
        #expect(clock.sleeps == backoff)
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("still failing after 20 attempts in 29 s") == true, "\(String(describing: error))")
    }

    @Test("keyword strings redact their password too")
    func keywordRedaction() {
        let configuration = PostgresConfiguration(connectionString: "host=db password=s3cret user=steno")
        #expect(configuration.redactedConnectionString == "host=db password=[redacted] user=steno")
    }
}
