import StenoCore
import StenoTranscription
import Synchronization
import Testing

@testable import StenoWorker

@Suite("LeaseWatch")
struct LeaseWatchTests {
    @Test("a lease renewed within half its length uploads, an older one waits, one a whole lease old is lost")
    func verdicts() {
        let lease = Duration.seconds(10)
        #expect(LeaseWatch.verdict(sinceRenewal: .zero, lease: lease) == .upload)
        #expect(LeaseWatch.verdict(sinceRenewal: .milliseconds(4999), lease: lease) == .upload)
        #expect(LeaseWatch.verdict(sinceRenewal: .seconds(5), lease: lease) == .waitForHeartbeat)
        #expect(LeaseWatch.verdict(sinceRenewal: .milliseconds(9999), lease: lease) == .waitForHeartbeat)
        #expect(LeaseWatch.verdict(sinceRenewal: .seconds(10), lease: lease) == .lost)
    }

    /// A lease of 1 s whose age the test sets, and how often the watch stopped its job.
    final class Lease: Sendable {
        private let age: Mutex<Duration>
        private let stopCount = Mutex(0)

        init(age: Duration) { self.age = Mutex(age) }

        func set(_ value: Duration) { age.withLock { $0 = value } }
        var stops: Int { stopCount.withLock { $0 } }

        var watch: LeaseWatch {
            var watch = LeaseWatch(
                lease: .seconds(1), sinceRenewal: { self.age.withLock { $0 } }, stop: { self.stopCount.withLock { $0 += 1 } })
            watch.recheck = .milliseconds(10)
            return watch
        }
    }

    @Test("an upload on a fresh lease starts at once")
    func freshLease() async throws {
        let lease = Lease(age: .milliseconds(100))
        try await lease.watch.admitUpload(cancellation: CancellationSignal())
        #expect(lease.stops == 0)
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
        #expect(lease.stops == 0)
        try await renewal.value
    }

    @Test("a lease not renewed for its whole length stops the job without an upload")
    func lostLease() async {
        let lease = Lease(age: .milliseconds(600))
        let aging = Task {
            try await Task.sleep(for: .milliseconds(100))
            lease.set(.seconds(1))
        }
        await #expect(throws: TranscriptionError.self) {
            try await lease.watch.admitUpload(cancellation: CancellationSignal())
        }
        #expect(lease.stops == 1)
        _ = await aging.result
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
        #expect(lease.stops == 0, "a job stopped for another reason keeps that reason")
        _ = await stopping.result
    }
}
