import StenoCore
import StenoInfrastructure
import StenoStore
extension WorkStore.DueWork {
    /// Which of a worker's loops to wake after a heartbeat, and in how many seconds (0: now).
    struct Wakes: Equatable {
        var rescueIn: Double?
        var claimIn: Double?
        var notices = false
    }

    /// What one heartbeat's view of due work asks of the worker; what falls due after the next
    /// heartbeat is left to that one. `beforeNextBeat` is the heartbeat interval in seconds;
    /// chunk jobs count only when `chunkJobsClaimable` (their backend is not paused or down,
    /// or a probe is due), and a draining worker claims nothing.
    func wakes(beforeNextBeat: Double, chunkJobsClaimable: Bool, draining: Bool) -> Wakes {
        var wakes = Wakes(notices: notices)
        // A lease is taken back once it has expired (`lease_expires_at < now()`): just after;
        // a hung worker's jobs once its heartbeat is older than the hang limit; a dead worker's
        // after a short wait (`RescuePolicy.confirmDelay`), in which a live worker whose
        // listening session broke takes its liveness lock again.
        let rescues = [
            leaseExpiresIn.map { max(0, $0 + 0.05) }, hungIn.map { max(0, $0 + 0.05) },
            ownersDied ? RescuePolicy.confirmDelay.seconds : nil,
        ].compactMap { $0 }
        if let first = rescues.min(), first < beforeNextBeat { wakes.rescueIn = first }
        guard !draining else { return wakes }
        let claimable = [chunkJobsClaimable ? chunkJobsIn : nil, otherJobsIn].compactMap { $0 }
        if let first = claimable.min(), first < beforeNextBeat { wakes.claimIn = max(0, first) }
        return wakes
    }
}
