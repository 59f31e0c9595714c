import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoTestSupport
import StenoTranscription
import Testing

@testable import StenoWorker
import StenoStore

@Suite("Fleet-wide rate limits")
struct FleetRateLimitTests {
    @Test("many workers with many requests each stay inside one shared budget, and only one per worker asks the database")
    func sharedBudget() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 12)
            defer { Task { await client.shutdown() } }
            // 30 a minute: 30 at once from a full bucket, then one every 2 s of the test's clock,
            // which the bucket's statements take for now as well.
            let limit = RateLimit(requestsPerMinute: 30)
            let logger = Logger(label: "steno.test.rate")
            let clock = ManualClock(date: Date())
            let gates = (0..<6).map { _ in
                FleetRateGate(client: client, metrics: WorkerMetrics(), clock: clock, time: .given(by: clock), logger: logger)
            }
            let stop = CancellationSignal()
            let requesters = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for gate in gates {
                        for _ in 0..<8 {
                            group.addTask {
                                while (try? await gate.admit(backend: "free-tier", limit: limit, audioSeconds: 10, cancellation: stop)) != nil {}
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            func bucket() async throws -> (granted: Int, waited: Int) {
                let row = try await client.query("SELECT granted, waited FROM backend_rate_limits WHERE backend = 'free-tier'").single()
                return (try row.decode("granted"), try row.decode("waited"))
            }
            // Settled: the first in each worker's line sleeps until the refill, the others queue
            // behind it without asking the database.
            func settled() async throws {
                try await poll(until: { clock.sleeperCount == gates.count }, "every worker's first request waiting for the refill")
            }
            try await settled()
            #expect(try await bucket().granted == 30, "the full bucket at once, and no more")
            for refill in 1...5 {
                // A little over one refill: each worker's first in line sleeps 20 ms past it.
                clock.advance(by: .milliseconds(2100))
                try await settled()
                #expect(try await bucket().granted == 30 + refill, "one request per 2 s refilled, after refill \(refill)")
            }
            // Each time the bucket is empty, one refused turn per worker, not one per waiting
            // request (48): 6 at first, and 6 after each refill (5 that lost the token, and the
            // next in the winner's line).
            let waited = try await bucket().waited
            #expect(waited == gates.count * 6, "\(waited) refused turns")
            stop.cancel()
            try await requesters.value
        }
    }

    @Test("a request waiting for the budget is cancelled at once with its job")
    func cancelWhileWaiting() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            // The gate waits for the refill on a clock that never moves: only the cancel can end it.
            let clock = ManualClock()
            let gate = FleetRateGate(client: client, metrics: WorkerMetrics(), clock: clock, logger: Logger(label: "steno.test.rate"))
            let limit = RateLimit(requestsPerMinute: 1)
            try await gate.admit(backend: "slow", limit: limit, audioSeconds: 0, cancellation: CancellationSignal())
            let signal = CancellationSignal()
            let waiting = Task { try await gate.admit(backend: "slow", limit: limit, audioSeconds: 0, cancellation: signal) }
            await clock.sleepers(atLeast: 1)
            // The refill is a minute away: the gate sleeps its longest sleep, then asks again.
            #expect(clock.sleeps == [FleetRateGate.longestSleep])
            signal.cancel()
            await #expect(throws: TranscriptionError.self) { try await waiting.value }
        }
    }

    @Test("a request whose statement waits on a locked bucket still leaves at once when its job is cancelled", .timeLimit(.minutes(2)))
    func cancelWhileTheStatementWaits() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let holder = database.client(maxConnections: 1)
            defer { Task { await client.shutdown(); await holder.shutdown() } }
            let gate = FleetRateGate(client: client, metrics: WorkerMetrics(), logger: Logger(label: "steno.test.rate"))
            let limit = RateLimit(requestsPerMinute: 60)
            try await gate.admit(backend: "locked", limit: limit, audioSeconds: 0, cancellation: CancellationSignal())
            // Another session holds the bucket's row, as another worker's turn does inside its
            // transaction, so the next turn's statement waits in the database.
            let locked = Latch()
            let release = Latch()
            let holding = Task {
                try await holder.withTransaction { connection in
                    _ = try await connection.query("SELECT 1 AS held FROM backend_rate_limits WHERE backend = \("locked") FOR UPDATE")
                    locked.open()
                    _ = await release.wait()
                }
            }
            _ = await locked.wait()
            let signal = CancellationSignal()
            let waiting = Task { try await gate.admit(backend: "locked", limit: limit, audioSeconds: 0, cancellation: signal) }
            try await poll(until: {
                try await client.query(
                    "SELECT count(*) AS waits FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                ).single().decode("waits", as: Int.self) > 0
            }, "the second turn's statement waiting for the lock")
            signal.cancel()
            await #expect(throws: TranscriptionError.self) { try await waiting.value }
            // The request has left while the other session still holds the row, which only the
            // release below lets go: one that waited for its statement would never get here
            // (the suite's time limit would end the test).
            release.open()
            try await holding.value
        }
    }

    @Test("workers send no more than the limit to the backend, and steno workers shows it")
    func workersKeepTheLimit() async throws {
        let backend = try FaultServer(replies: [], then: .json(200, #"{"text":"Heard."}"#))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            // An empty bucket refilled at one request a second (60 a minute).
            try await client.query(
                """
                INSERT INTO backend_rate_limits (backend, requests_per_minute, requests, audio_seconds, refilled_at)
                VALUES ('test-backend', 60, 0, 0, clock_timestamp())
                """)
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configureBackend: { $0.rateLimit = RateLimit(requestsPerMinute: 60) }) { _ in
                try await RunningWorker.with(database: database, backendURL: backend.baseURL, configureBackend: { $0.rateLimit = RateLimit(requestsPerMinute: 60) }) { _ in
                    let media = try await db.enqueue(FixtureBook.file("book.m4b").path)
                    #expect(try await db.waitForMedia(media, in: ["succeeded", "failed"]) == "succeeded")
                }
            }
            // Every request the backend saw took a token of the fleet's bucket: the workers go
            // through the gate. How the gate spaces the tokens
            // is `sharedBudget`'s, on a clock the test moves.
            let requests = backend.requests.count
            #expect(requests >= 5)
            let row = try await client.query("SELECT granted, waited FROM backend_rate_limits WHERE backend = 'test-backend'").single()
            #expect(try row.decode("granted", as: Int.self) == requests)
            let output = try await StenoProcess.run(["workers", "--all", "--database-url", database.configuration.connectionString])
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains("test-backend"))
            #expect(output.standardOutput.contains("60 requests/min"), "\(output.standardOutput)")
        }
    }
}
