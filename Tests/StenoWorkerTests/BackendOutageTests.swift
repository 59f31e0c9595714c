import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoWorker
import StenoTranscription
import StenoInfrastructure

/// A backend that is down is waited out, not failed: the fleet stops sending it chunks, probes
/// it with one chunk job at growing intervals, and resumes when it answers; the waiting jobs
/// keep their attempts.
@Suite("backend outages", .serialized, .timeLimit(.minutes(5)))
struct BackendOutageTests {
    static let answer = #"{"text":"Back again.","segments":[{"id":0,"start":0.0,"end":1.5,"text":"Back again."}]}"#

    @Test("jobs that find the backend down at the same moment all record it: one outage, every failure counted")
    func simultaneousFailuresRecordOneOutage() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 8)
            defer { Task { await client.shutdown() } }
            let store = WorkStore(client: client)
            let probe = OutageProbe(initial: .seconds(5), cap: .seconds(300))
            // Every recorder waits on the table until all of them are waiting, then all go at once.
            let holder = try await PostgresConnection.connect(configuration: database.configuration)
            try await holder.query("BEGIN")
            try await holder.query("LOCK TABLE backend_outages IN EXCLUSIVE MODE")
            let recorders = Task {
                try await withThrowingTaskGroup(of: WorkStore.Outage.self) { group in
                    for job in 0..<8 {
                        group.addTask { try await store.recordOutage(backend: "primary", reason: "refused (job \(job))", probe: probe) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            // Watched from a session of its own: inside the holder's transaction the view would not change.
            let watcher = try await PostgresConnection.connect(configuration: database.configuration)
            try await poll(until: {
                try await watcher.query(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                ).single().decode("n", as: Int.self) >= 8
            }, "the 8 recorders waiting on the lock")
            await watcher.close()
            try await holder.query("COMMIT")
            await holder.close()
            let outages = try await recorders.value
            #expect(outages.count == 8)
            let row = try await client.query("SELECT count(*) AS rows, max(failures) AS failures FROM backend_outages").single()
            #expect(try row.decode("rows", as: Int.self) == 1)
            #expect(try row.decode("failures", as: Int.self) == 8)
        }
    }

    @Test("twelve resets in a row (more than a job's five attempts) pause the backend fleet-wide; probes find it back and the media succeeds")
    func outageIsWaitedOut() async throws {
        let outageRequests = 12
        let backend = try FaultServer(replies: Array(repeating: .reset, count: outageRequests), then: .json(200, Self.answer))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL,
                configure: { $0.outageProbe = OutageProbe(initial: .milliseconds(300), cap: .milliseconds(900)) },
                configureBackend: { $0.retry.maximumRetries = 0 }
            ) { _ in
                let id = try await db.enqueue(FixtureBook.file("clip-2s.flac").path)
                var sawPause = false
                var sawOutageRow = false
                // Watched until the media ends; 120 s bounds a hang.
                let state = try await polled(within: .seconds(120)) { () -> String? in
                    let state = try await db.mediaState(id).state
                    if ["succeeded", "failed", "cancelled"].contains(state) { return state }
                    let message = try await client.query("SELECT status, status_message FROM workers").first
                    if try message?.decode("status", as: String.self) == "paused",
                       try message?.decode("status_message", as: String?.self)?.contains("is down") == true {
                        sawPause = true
                    }
                    if try await db.count("SELECT count(*) FROM backend_outages WHERE $1 > 0", 1) > 0 { sawOutageRow = true }
                    return nil
                }
                let ended = try await db.mediaState(id)
                #expect(state == "succeeded", "\(ended)")
                #expect(backend.requestCount == outageRequests + 1, "\(backend.requestCount) requests")
                #expect(sawOutageRow, "the outage was never recorded for the fleet")
                #expect(sawPause, "steno workers never showed the pause")
                let failed = try await db.count(
                    "SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE j.media_id = $1 AND a.outcome IN ('failed', 'retry')", id)
                #expect(failed == 0, "an outage used up \(failed) attempts")
                let remaining = try await db.count("SELECT count(*) FROM backend_outages WHERE $1 > 0", 1)
                #expect(remaining == 0, "the outage was not ended")
            }
        }
    }

    @Test("requests that time out narrow the worker's requests in flight (AIMD) before anything counts as an outage; the media succeeds")
    func timeoutsNarrowTheWindow() async throws {
        let backend = try FaultServer(replies: Array(repeating: .hang, count: 3), then: .json(200, Self.answer))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL,
                configure: {
                    $0.concurrency = 4
                    $0.outageProbe = OutageProbe(initial: .milliseconds(300), cap: .milliseconds(900))
                },
                configureBackend: {
                    $0.retry.maximumRetries = 0
                    $0.limits.request = .seconds(1)
                }
            ) { worker in
                let id = try await db.enqueue(FixtureBook.file("book.m4b").path)
                var lowest = Double.infinity
                let state = try await polled(within: .seconds(120)) { () -> String? in
                    let state = try await db.mediaState(id).state
                    if ["succeeded", "failed", "cancelled"].contains(state) { return state }
                    lowest = min(lowest, worker.runtime.requests.limit)
                    return nil
                }
                let ended = try await db.mediaState(id)
                #expect(state == "succeeded", "\(ended)")
                #expect(lowest <= 2, "three timeouts should have narrowed the window from 4 to 2 or less, lowest seen \(lowest)")
                let failed = try await db.count(
                    "SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE j.media_id = $1 AND a.outcome = 'failed'", id)
                #expect(failed == 0)
            }
        }
    }
}
