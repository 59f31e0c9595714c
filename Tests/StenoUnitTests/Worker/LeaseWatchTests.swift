import StenoCore
import StenoInfrastructure
import StenoTestSupport
import StenoTranscription
import Synchronization
import Testing

@testable import StenoWorker

/// The watch's rechecks wait on a manual clock: a test moves it after the watch is waiting.
@Suite("LeaseWatch", .timeLimit(.minutes(1)))
struct LeaseWatchTests {
    @Test("a lease renewed within half its length uploads, an older one waits for a heartbeat")
    func verdicts() {
        let lease = Duration.seconds(10)
        #expect(LeaseWatch.verdict(sinceRenewal: .zero, lease: lease) == .upload)
        #expect(LeaseWatch.verdict(sinceRenewal: .milliseconds(4999), lease: lease) == .upload)
        #expect(LeaseWatch.verdict(sinceRenewal: .seconds(5), lease: lease) == .waitForHeartbeat)
        #expect(LeaseWatch.verdict(sinceRenewal: .seconds(60), lease: lease) == .waitForHeartbeat)
    }

    /// A lease of 1 s whose age the test sets, watched on a manual clock.
    final class Lease: Sendable {
        private let age: Mutex<Duration>
        let clock = ManualClock()

        init(age: Duration) { self.age = Mutex(age) }

        func set(_ value: Duration) { age.withLock { $0 = value } }
        var isFresh: Bool { age.withLock { $0 } == .zero }

        var watch: LeaseWatch {
            LeaseWatch(lease: .seconds(1), sinceRenewal: { self.age.withLock { $0 } }, recheck: .milliseconds(10), clock: clock)
        }
    }

    @Test("an upload on a fresh lease starts without waiting")
    func freshLease() async throws {
        let lease = Lease(age: .milliseconds(100))
        try await lease.watch.admitUpload(cancellation: CancellationSignal())
        #expect(lease.clock.sleeps.isEmpty, "no recheck: the lease was fresh")
    }

    @Test("an upload on a lease two heartbeats late waits for the next heartbeat, then starts")
    func lateLeaseWaitsForHeartbeat() async throws {
        let lease = Lease(age: .milliseconds(600))
        let upload = Task {
            try await lease.watch.admitUpload(cancellation: CancellationSignal())
            return lease.isFresh
        }
        await lease.clock.sleepers(atLeast: 1)
        lease.set(.zero)
        lease.clock.advance(by: .milliseconds(10))
        #expect(try await upload.value, "the upload started only after the heartbeat renewed the lease")
        #expect(lease.clock.sleeps.first == .milliseconds(10))
    }

    @Test("a lease left unrenewed for longer than itself still only waits: a slow heartbeat may yet have renewed it")
    func unrenewedLeaseWaits() async throws {
        let lease = Lease(age: .seconds(5))
        let upload = Task {
            try await lease.watch.admitUpload(cancellation: CancellationSignal())
            return lease.isFresh
        }
        // Thirty rechecks, three times the lease: each finds it still old and waits again.
        for _ in 0..<30 {
            await lease.clock.sleepers(atLeast: 1)
            lease.clock.advance(by: .milliseconds(10))
        }
        await lease.clock.sleepers(atLeast: 1)
        #expect(lease.clock.sleeps.count == 31)
        lease.set(.zero)
        lease.clock.advance(by: .milliseconds(10))
        #expect(try await upload.value, "no upload before the heartbeat renewed the lease")
    }

    @Test("a job stopped while its upload waits ends the wait")
    func stoppedWhileWaiting() async {
        let lease = Lease(age: .milliseconds(600))
        let signal = CancellationSignal()
        let upload = Task { try await lease.watch.admitUpload(cancellation: signal) }
        await lease.clock.sleepers(atLeast: 1)
        signal.cancel()
        await #expect(throws: TranscriptionError.self) { try await upload.value }
    }
}
