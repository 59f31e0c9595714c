import Foundation
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// A job quarantined to run alone on a fleet whose every slot is refilled as a job ends: one
/// worker, the least loaded, is told by its heartbeat to make room, so that the job runs within
/// a bounded time and not once the whole backlog has drained.
@Suite("Heartbeat: a worker makes room for a job that runs alone")
struct AloneRoomTests {
    @Test("with a backlog and a job due alone for longer than the wait, only the least loaded live worker is told to make room")
    func leastLoadedWorkerMakesRoom() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let clock = ManualClock(date: Date())
            let work = WorkStore(client: client, time: .given(by: clock))
            for id in ["busy", "lighter", "stale"] {
                _ = try await work.register(workerID: id, hostname: "h", pid: 1, version: "test")
            }
            // "stale" has the fewest jobs but has not beaten for ten minutes: it is not live.
            try await client.query("UPDATE workers SET last_heartbeat_at = \(clock.date)::timestamptz WHERE id <> 'stale'")
            try await client.query("UPDATE workers SET last_heartbeat_at = \(clock.date)::timestamptz - interval '600 seconds', jobs_in_flight = 0 WHERE id = 'stale'")
            // A backlog of 500 chunk jobs, and one job to run alone, due since a moment ago.
            try await client.query("INSERT INTO jobs (kind, priority) SELECT 'chunk', 2 FROM generate_series(1, 500)")
            try await client.query("INSERT INTO jobs (kind, runs_alone, run_at) VALUES ('chunk', true, \(clock.date)::timestamptz - interval '1 second')")

            func beat(_ id: String, inFlight: Int) async throws -> Bool {
                try await work.heartbeatWorker(workerID: id, status: .running, message: nil, jobsInFlight: inFlight, pausedBackends: [:]).makeRoomForAlone
            }
            // Both report their load; the job has not waited long enough yet.
            #expect(try await beat("busy", inFlight: 4) == false)
            #expect(try await beat("lighter", inFlight: 2) == false)
            #expect(try await beat("lighter", inFlight: 2) == false, "not before the job has waited \(RescuePolicy.aloneRoomAfter)")

            clock.advance(by: RescuePolicy.aloneRoomAfter)
            #expect(try await beat("busy", inFlight: 4) == false, "a busier worker keeps filling its slots")
            #expect(try await beat("lighter", inFlight: 2), "the least loaded live worker makes room")

            // Taken: nobody makes room any more.
            try await client.query("UPDATE jobs SET state = 'running', lease_owner = 'lighter', lease_expires_at = now() + interval '1 minute', attempt = 1 WHERE runs_alone")
            #expect(try await beat("lighter", inFlight: 1) == false)
            #expect(try await beat("busy", inFlight: 4) == false)
        }
    }
}
