import Foundation
import StenoCore
import StenoInfrastructure
import StenoStore
import Synchronization

/// Whether chunk jobs may go to the backend now, and what to tell the operator when they may not:
/// the one home of that rule for the claim, the heartbeat's wakes and its status line.
///
/// Two things hold chunk jobs back. A backend that rejected the configuration (a bad key, no
/// quota) is paused by this worker for a while: one bad key must not fail the whole queue. A
/// backend the fleet found down (`backend_outages`, refreshed with every heartbeat) takes no chunk
/// but the one of a probe, when it is due, and only without a fallback to take its chunks.
final class BackendAvailability: Sendable {
    /// The backend chunk jobs go to first.
    let primary: String
    /// Whether the primary's outages hold chunk jobs back: only without a fallback.
    let outagesPause: Bool
    private let state = Mutex(Snapshot())

    /// Says what "now" is for pauses and probes.
    let clock: any MonotonicClock

    init(primary: String, outagesPause: Bool, clock: any MonotonicClock = .continuous) {
        self.primary = primary
        self.outagesPause = outagesPause
        self.clock = clock
    }

    /// What this worker knows: its own pauses and the fleet's outages.
    struct Snapshot: Sendable, Equatable {
        var pausedUntil: [String: Date] = [:]
        var outages: [String: WorkStore.Outage] = [:]

        /// What a claim may take now.
        func admission(primary: String, outagesPause: Bool, now: Date) -> ChunkAdmission {
            if pausedUntil.values.contains(where: { $0 > now }) { return .held }
            guard outagesPause, let outage = outages[primary] else { return .open }
            return outage.probeAt <= now ? .probe(backend: primary) : .held
        }

        /// The backends whose chunk jobs wait, until when, and the sentence that says why.
        func report(primary: String, outagesPause: Bool, now: Date) -> (paused: [String: Date], message: String?) {
            var paused = pausedUntil.filter { $0.value > now }
            var message = paused.isEmpty
                ? nil : "chunk jobs paused: backend \(paused.keys.sorted().joined(separator: ", ")) rejected the configuration"
            if outagesPause, let outage = outages[primary] {
                paused[outage.backend] = max(paused[outage.backend] ?? outage.probeAt, outage.probeAt)
                message = "chunk jobs paused: backend \(outage.backend) is down since \(Self.clock(outage.since)) (\(outage.reason)); "
                    + "\(outage.failures) failures, next probe at \(Self.clock(outage.probeAt))"
            }
            return (paused, message)
        }

        private static func clock(_ date: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withTime, .withColonSeparatorInTime]
            return formatter.string(from: date) + " UTC"
        }
    }

    /// Which chunk jobs a claim may take.
    enum ChunkAdmission: Sendable, Equatable {
        case open
        /// None: the backend is paused, or down with its next probe not yet due.
        case held
        /// One, as the probe of a backend that is down, if this worker wins the probe.
        case probe(backend: String)
    }

    func admission(now: Date? = nil) -> ChunkAdmission {
        let now = now ?? clock.date
        return state.withLock { $0.admission(primary: primary, outagesPause: outagesPause, now: now) }
    }

    /// Whether a claim may take chunk jobs now (a probe that is due counts).
    var chunkJobsClaimable: Bool { admission() != .held }

    func report(now: Date? = nil) -> (paused: [String: Date], message: String?) {
        let now = now ?? clock.date
        return state.withLock { $0.report(primary: primary, outagesPause: outagesPause, now: now) }
    }

    /// A backend paused now, and until when; nil when none is.
    func pause(now: Date? = nil) -> (backend: String, until: Date)? {
        let now = now ?? clock.date
        return state.withLock { $0.pausedUntil.filter { $0.value > now }.max { $0.value < $1.value } }.map { ($0.key, $0.value) }
    }

    /// The backend rejected the configuration: no chunk jobs for it for `duration`, on this
    /// worker's clock.
    func pause(_ backend: String, for duration: Duration) {
        let date = clock.date.addingTimeInterval(duration.seconds)
        state.withLock { $0.pausedUntil[backend] = max($0.pausedUntil[backend] ?? date, date) }
    }

    /// The fleet's outages, as the heartbeat read them; ignored where outages pause nothing.
    func replaceOutages(with list: [WorkStore.Outage]) {
        guard outagesPause else { return }
        state.withLock { $0.outages = Dictionary(list.map { ($0.backend, $0) }) { $1 } }
    }

    /// An outage this worker recorded.
    func learn(_ outage: WorkStore.Outage) {
        state.withLock { $0.outages[outage.backend] = outage }
    }

    /// `backend` answered: true if it was known to be down, which the caller ends for the fleet.
    func answered(_ backend: String) -> Bool {
        state.withLock { $0.outages.removeValue(forKey: backend) } != nil
    }
}
