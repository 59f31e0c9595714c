import StenoCore
import StenoTranscription
import Synchronization
import Testing

@testable import StenoWorker

@Suite("LeaseWatch")
struct LeaseWatchTests {
    @Test("a lease renewed within half its length uploads, an older one waits for a heartbeat")
    func verdicts() {
        let lease = Duration.seconds(10)
        #expect(LeaseWatch.verdict(sinceRenewal: .zero, lease: lease) == .upload)
        #expect(LeaseWatch.verdict(sinceRenewal: .milliseconds(4999), lease: lease) == .upload)
        #expect(LeaseWatch.verdict(sinceRenewal: .seconds(5), lease: lease) == .waitForHeartbeat)
        #expect(LeaseWatch.verdict(sinceRenewal: .seconds(60), lease: lease) == .waitForHeartbeat)
    }

    /// A lease of 1 s whose age the test sets.
    final class Lease: Sendable {
        private let age: Mutex<Duration>

        init(age: Duration) { self.age = Mutex(age) }

        func set(_ value: Duration) { age.withLock { $0 = value } }

        var watch: LeaseWatch {
            var watch = LeaseWatch(lease: .seconds(1), sinceRenewal: { self.age.withLock { $0 } })
            watch.recheck = .milliseconds(10)
            return watch
        }
    }

    @Test("an upload on a fresh lease starts at once")
    func freshLease() async throws {
        let lease = Lease(age: .milliseconds(100))
        try await lease.watch.admitUpload(cancellation: CancellationSignal())
    }

    @Test("an upload on a lease two heartbeats late waits for the next heartbeat, then starts")
    func lateLeaseWaitsForHeartbeat() async throws {
        let lease = Lease(age: .milliseconds(600))
        let renewal = Task {
            try await Task.sleep(for: .milliseconds(200))
            lease.set(.zero)
        }
        let started = ContinuousClock.now
        try await lease.watch.admitUpload(cancellation: CancellationSignal())
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        try await renewal.value
    }

    @Test("a lease left unrenewed for longer than itself still only waits: a slow heartbeat may yet have renewed it")
    func unrenewedLeaseWaits() async throws {
        let lease = Lease(age: .seconds(5))
        let started = ContinuousClock.now
        let waiting = Task { try await lease.watch.admitUpload(cancellation: CancellationSignal()) }
        try await Task.sleep(for: .milliseconds(300))
        lease.set(.zero)
        try await waiting.value
        #expect(ContinuousClock.now - started >= .milliseconds(300), "no upload before the heartbeat renewed the lease")
    }

    @Test("a job stopped while its upload waits ends the wait")
    func stoppedWhileWaiting() async {
        let lease = Lease(age: .milliseconds(600))
        let signal = CancellationSignal()
        let stopping = Task {
            try await Task.sleep(for: .milliseconds(100))
            signal.cancel()
        }
        await #expect(throws: TranscriptionError.self) {
            try await lease.watch.admitUpload(cancellation: signal)
        }
        _ = await stopping.result
    }
}
