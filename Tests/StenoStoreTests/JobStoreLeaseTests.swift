import Foundation
import StenoCore
import StenoInfrastructure
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// The store's statements read "now" from a manual clock here (`StatementTime.given(by:)`), so
/// a lease expires, or a retry falls due, when the test moves the clock.
@Suite("JobStore: leases, finishing and rescue")
struct JobStoreLeaseTests {
    @Test("a worker whose lease expired and was rescued cannot finish the job afterwards")
    func rescuedWorkerIsFenced() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let id = try await store.enqueue(NewJob(kind: .chunk))
            let stale = try #require(try await store.claim(limit: 1, worker: "frozen", lease: .milliseconds(200)).first?.lease)
            clock.advance(by: .milliseconds(199))
            #expect(try await store.rescueExpired().isEmpty, "the lease still holds")

            clock.advance(by: .milliseconds(2))
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
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            _ = try await store.enqueue([NewJob(kind: .chunk), NewJob(kind: .chunk)])
            // Three heartbeats 1.5 s apart on a 2 s lease: 4.5 s in all, past the first lease's end.
            let leases = try await store.claim(limit: 2, worker: "w", lease: .seconds(2)).compactMap(\.lease)
            for _ in 0..<3 {
                clock.advance(by: .milliseconds(1500))
                let results = try await store.heartbeat(leases, extendBy: .seconds(2))
                #expect(results.values.allSatisfy { $0 == .held(cancelRequested: false) })
                #expect(try await store.rescueExpired().isEmpty)
            }
            // Without a heartbeat the lease runs out.
            clock.advance(by: .milliseconds(2001))
            #expect(try await store.rescueExpired().count == 2)
            await client.shutdown()
        }
    }

    @Test("a rescued job out of attempts fails instead of running again")
    func rescueOutOfAttempts() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let id = try await store.enqueue(NewJob(kind: .chunk, maxAttempts: 1))
            _ = try await store.claim(limit: 1, worker: "crashed", lease: .milliseconds(50))
            clock.advance(by: .milliseconds(51))
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
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let id = try await store.enqueue(NewJob(kind: .chunk, maxAttempts: 2))

            let first = try #require(try await store.claim(limit: 1, worker: "w", lease: .seconds(30)).first?.lease)
            let decision = try await store.retryLater(first, after: .seconds(2), .init(.transient, "HTTP 503", httpStatus: 503))
            guard case .requeued(let runAt) = decision else {
                Issue.record("expected a requeue, got \(decision)")
                return
            }
            #expect(abs(runAt.timeIntervalSince(clock.date) - 2) < 0.001, "two seconds after the failure, by the statements' clock")
            #expect(try await store.claim(limit: 1, worker: "w", lease: .seconds(30)).isEmpty, "not claimable before run_at")
            clock.advance(by: .milliseconds(1990))
            #expect(try await store.claim(limit: 1, worker: "w", lease: .seconds(30)).isEmpty, "not claimable 10 ms before run_at")
            clock.advance(by: .milliseconds(20))
            let claimed = try await store.claim(limit: 1, worker: "w", lease: .seconds(30))

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
