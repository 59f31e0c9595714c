import StenoCore
import StenoInfrastructure
import Synchronization

/// The jobs this worker runs right now, with the signal that stops each and why it was stopped.
final class InFlightJobs: Sendable {
    struct Entry: Sendable {
        var job: Job
        var lease: JobLease
        var signal: CancellationSignal
        var answerHold: AnswerHold
        var stopReason: StopReason?
        /// When the lease was last known to hold: the claim, then each heartbeat that renewed it
        /// (the time the heartbeat was sent, so never later than the database's renewal).
        var renewedAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[Int64: Entry]>([:])
    /// The worker's clock: renewals and their age are read on it.
    let clock: any MonotonicClock

    init(clock: any MonotonicClock = .continuous) {
        self.clock = clock
    }

    var count: Int { entries.withLock { $0.count } }
    var leases: [JobLease] { entries.withLock { $0.values.map(\.lease) } }
    /// A job in flight must run alone (`Job.runsAlone`): nothing is claimed beside it.
    var runsAlone: Bool { entries.withLock { $0.values.contains { $0.job.runsAlone } } }

    func insert(_ job: Job, lease: JobLease, signal: CancellationSignal, answerHold: AnswerHold) {
        let now = clock.now
        entries.withLock { $0[job.id] = Entry(job: job, lease: lease, signal: signal, answerHold: answerHold, renewedAt: now) }
    }

    func renewed(_ jobID: Int64, at instant: ContinuousClock.Instant) {
        entries.withLock { entries in
            if let renewedAt = entries[jobID]?.renewedAt, renewedAt < instant { entries[jobID]?.renewedAt = instant }
        }
    }

    /// How long ago the job's lease was last renewed (zero for a job not in flight).
    func sinceRenewal(_ jobID: Int64) -> Duration {
        let now = clock.now
        return entries.withLock { $0[jobID].map { now - $0.renewedAt } } ?? .zero
    }

    func remove(_ jobID: Int64) {
        _ = entries.withLock { $0.removeValue(forKey: jobID) }
    }

    /// Records the first reason a job was stopped and fires its signal; a lost lease does not
    /// stop a job that is storing an answer it has (`AnswerHold`).
    func stop(_ jobID: Int64, _ reason: StopReason) {
        let signal = entries.withLock { entries -> CancellationSignal? in
            guard var entry = entries[jobID] else { return nil }
            if entry.stopReason == nil {
                entry.stopReason = reason
                entries[jobID] = entry
            }
            if reason == .leaseLost && entry.answerHold.isHeld { return nil }
            return entry.signal
        }
        signal?.cancel()
    }

    func stopAll(_ reason: StopReason) {
        for id in entries.withLock({ Array($0.keys) }) {
            stop(id, reason)
        }
    }

    func stopReason(_ jobID: Int64) -> StopReason? {
        entries.withLock { $0[jobID]?.stopReason }
    }
}
