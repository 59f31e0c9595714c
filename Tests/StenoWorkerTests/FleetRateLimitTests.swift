import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoTestSupport
import StenoTranscription
import Testing

@testable import StenoWorker

@Suite("Fleet-wide rate limits")
struct FleetRateLimitTests {
    @Test("many workers with many requests each stay inside one shared budget, and only one per worker asks the database")
    func sharedBudget() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 12)
            defer { Task { await client.shutdown() } }
            // 30 a minute: 30 at once from a full bucket, then one every 2 s.
            let limit = RateLimit(requestsPerMinute: 30)
            let logger = Logger(label: "steno.test.rate")
            let workers = (0..<6).map { _ in FleetRateGate(client: client, metrics: WorkerMetrics(), logger: logger) }
            let started = ContinuousClock.now
            let runFor = Duration.seconds(7)
            let grants = try await withThrowingTaskGroup(of: [Duration].self) { group in
                for gate in workers {
                    for _ in 0..<8 {
                        group.addTask {
                            var times: [Duration] = []
                            while ContinuousClock.now - started < runFor {
                                let signal = CancellationSignal()
                                let stop = Task { try await Task.sleep(until: started + runFor); signal.cancel() }
                                defer { stop.cancel() }
                                do {
                                    try await gate.admit(backend: "free-tier", limit: limit, audioSeconds: 10, cancellation: signal)
                                    times.append(ContinuousClock.now - started)
                                } catch {
                                    break
                                }
                            }
                            return times
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }.sorted()
            let elapsed = (ContinuousClock.now - started).seconds
            // Never more than the bucket plus its refill, at any moment; and the refill is used.
            for (index, time) in grants.enumerated() {
                #expect(Double(index + 1) <= 30 + time.seconds / 2 + 1, "grant \(index + 1) at \(time)")
            }
            // The refill is used: every token due 2 s (a refill) before the requesters stop is
            // granted. Not counted to the end of the group: after the stop the requesters only
            // wind down, and how long that takes is the machine's, not the gate's.
            #expect(grants.count >= 30 + Int((runFor.seconds - 2 - 2) / 2), "\(grants.count) grants in \(elapsed) s")
            let row = try await client.query("SELECT granted, waited FROM backend_rate_limits WHERE backend = 'free-tier'").single()
            #expect(try row.decode("granted", as: Int.self) == grants.count)
            // One waiting request per worker polls, about once per refill: not 48 of them.
            let waited = try row.decode("waited", as: Int.self)
            #expect(waited <= workers.count * Int(elapsed / 2 + 3), "\(waited) refused turns")
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
            let emptied = ContinuousClock.now
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configureBackend: { $0.rateLimit = RateLimit(requestsPerMinute: 60) }) { _ in
                try await RunningWorker.with(database: database, backendURL: backend.baseURL, configureBackend: { $0.rateLimit = RateLimit(requestsPerMinute: 60) }) { _ in
                    let media = try await db.enqueue(FixtureBook.file("book.m4b").path)
                    #expect(try await db.waitForMedia(media, in: ["succeeded", "failed"]) == "succeeded")
                }
            }
            let times = backend.requests.map { ($0.receivedAt - emptied).seconds }.sorted()
            #expect(times.count >= 5)
            for (index, time) in times.enumerated() {
                #expect(time >= Double(index + 1) - 0.25, "request \(index + 1) at \(time) s")
            }
            let output = try await StenoProcess.run(["workers", "--all", "--database-url", database.configuration.connectionString])
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains("test-backend"))
            #expect(output.standardOutput.contains("60 requests/min"), "\(output.standardOutput)")
        }
    }
}
