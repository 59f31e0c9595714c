import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

@Suite("JobStore: leases, finishing and rescue")
struct JobStoreLeaseTests {
    @Test("a worker whose lease expired and was rescued cannot finish the job afterwards")
    func rescuedWorkerIsFenced() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let stale = try #require(try await store.claim(limit: 1, worker: "frozen", lease: .milliseconds(200)).first?.lease)

            try await Task.sleep(for: .milliseconds(400))
            let rescued = try await store.rescueExpired()
            #expect(rescued.map(\.id) == [id])
            #expect(rescued.first?.state == .queued)
            #expect(rescued.first?.worker == "frozen")

            // The frozen worker wakes up: nothing it writes lands.
            #expect(try await store.complete(stale) == false)
            #expect(try await store.heartbeat([stale], extendBy: .seconds(60))[stale] == .lost)
            #expect(try await store.fail(stale, .init(.permanent, "late")) == false)
            #expect(try await store.job(id)?.state == .queued)

            let fresh = try #require(try await store.claim(limit: 1, worker: "healthy", lease: .seconds(60)).first)
            #expect(fresh.attempt == 2)
            #expect(try await store.complete(stale) == false, "a stale lease stays fenced after another worker claims the job")
            #expect(try await store.complete(try #require(fresh.lease)))

            let attempts = try await store.attempts(ofJob: id)
            #expect(attempts.map(\.outcome) == [.leaseExpired, .succeeded])
            #expect(attempts.map(\.worker) == ["frozen", "healthy"])
            #expect(attempts.first?.errorClass == .lostLease)
            await client.shutdown()
        }
    }

    @Test("a heartbeat extends the lease and keeps the job from being rescued")
    func heartbeatExtends() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            _ = try await store.enqueue([NewJob(kind: .chunk), NewJob(kind: .chunk)])
            // Three heartbeats a second apart on a 2 s lease: 3 s in all, past the first lease's end,
            // with a second to spare for a machine busy with the other suites of this phase.
            let leases = try await store.claim(limit: 2, worker: "w", lease: .seconds(2)).compactMap(\.lease)
            for _ in 0..<3 {
                try await Task.sleep(for: .seconds(1))
                let results = try await store.heartbeat(leases, extendBy: .seconds(2))
                #expect(results.values.allSatisfy { $0 == .held(cancelRequested: false) })
                #expect(try await store.rescueExpired().isEmpty)
            }
            await client.shutdown()
        }
    }

    @Test("a rescued job out of attempts fails instead of running again")
    func rescueOutOfAttempts() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk, maxAttempts: 1))
            _ = try await store.claim(limit: 1, worker: "crashed", lease: .milliseconds(50))
            try await Task.sleep(for: .milliseconds(150))
            #expect(try await store.rescueExpired().first?.state == .failed)
            let job = try #require(try await store.job(id))
            #expect(job.state == .failed)
            #expect(job.errorClass == .lostLease)
            #expect(job.errorMessage?.contains("crashed") == true)
            await client.shutdown()
        }
    }

    @Test("retry later requeues with a delay on the database clock, then fails once out of attempts")
    func retryLater() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk, maxAttempts: 2))

            let first = try #require(try await store.claim(limit: 1, worker: "w", lease: .seconds(30)).first?.lease)
            // Wide enough that a busy machine (the suite runs in parallel) cannot pass run_at
            // between the requeue and the claim that must find nothing.
            let requeued = ContinuousClock.now
            let decision = try await store.retryLater(first, after: .seconds(2), .init(.transient, "HTTP 503", httpStatus: 503))
            guard case .requeued(let runAt) = decision else {
                Issue.record("expected a requeue, got \(decision)")
                return
            }
            #expect(runAt.timeIntervalSinceNow > 0)
            #expect(try await store.claim(limit: 1, worker: "w", lease: .seconds(30)).isEmpty, "not claimable before run_at")
            var claimed: [Job] = []
            while claimed.isEmpty, ContinuousClock.now - requeued < .seconds(15) {
                try await Task.sleep(for: .milliseconds(100))
                claimed = try await store.claim(limit: 1, worker: "w", lease: .seconds(30))
            }
            #expect(ContinuousClock.now - requeued >= .milliseconds(1900), "claimed before its run_at")

            let second = try #require(claimed.first?.lease)
            #expect(second.attempt == 2)
            #expect(try await store.retryLater(second, after: .seconds(1), .init(.transient, "HTTP 503", httpStatus: 503)) == .failed)
            let attempts = try await store.attempts(ofJob: id)
            #expect(attempts.map(\.outcome) == [.retry, .failed])
            #expect(attempts.map(\.httpStatus) == [503, 503])
            #expect(try await store.job(id)?.state == .failed)
            #expect(try await store.retryLater(second, after: .seconds(1), .init(.transient, "again")) == .leaseLost)
            await client.shutdown()
        }
    }

    @Test("a permanent failure ends the job at once with its class and message")
    func permanentFailure() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let lease = try #require(try await store.claim(limit: 1, worker: "w", lease: .seconds(30)).first?.lease)
            #expect(try await store.fail(lease, .init(.permanent, "unsupported language", httpStatus: 400)))
            let job = try #require(try await store.job(id))
            #expect(job.state == .failed)
            #expect(job.errorClass == .permanent)
            #expect(job.errorMessage == "unsupported language")
            #expect(job.leaseOwner == nil)
            await client.shutdown()
        }
    }

    @Test("shutdown hands running jobs back at once, without using up an attempt")
    func releaseAtShutdown() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let id = try await store.enqueue(NewJob(kind: .chunk, maxAttempts: 1))
            let lease = try #require(try await store.claim(limit: 1, worker: "stopping", lease: .seconds(600)).first?.lease)
            #expect(try await store.release([lease]) == [lease])

            let next = try #require(try await store.claim(limit: 1, worker: "other", lease: .seconds(30)).first)
            #expect(next.id == id, "claimable at once, not after the lease")
            #expect(next.attempt == 2 && next.maxAttempts == 2, "the released try was given back")
            #expect(try await store.attempts(ofJob: id).first?.outcome == .released)
            await client.shutdown()
        }
    }
}
