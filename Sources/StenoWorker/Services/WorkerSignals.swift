import ServiceLifecycle
import StenoCore
import StenoInfrastructure
import StenoStore
import Synchronization

/// What the worker's services tell each other. Each loop waits on its own wake; the heartbeat is
/// the only poll, and notifications, finished jobs and due work wake the loop that acts on them.
final class WorkerSignals: Sendable {
    /// The claimer: a `NOTIFY steno_jobs`, a finished job, jobs falling due, shutdown.
    let claim: Wakeup
    /// The lease keeper's heartbeat: a cancel addressed to this worker.
    let heartbeat: Wakeup
    /// The lease keeper's rescue: a heartbeat saw leases expired or owners dead.
    let rescue: Wakeup
    /// Webhook delivery: a media finished, or a notice fell due.
    let notices: Wakeup
    /// Open once the worker is registered and holds its liveness lock: nothing is claimed and
    /// no heartbeat is sent before, so a job is never held by a worker the fleet cannot see.
    let present = Latch()
    private let draining = Atomic<Bool>(false)
    private let mode = Mutex<ClaimMode>(.unknown)
    private let roomForAlone = Atomic<Bool>(false)
    /// The worker's clock, which every wait of its loops goes by.
    let clock: any MonotonicClock

    init(clock: any MonotonicClock = .continuous) {
        self.clock = clock
        claim = Wakeup(clock: clock)
        heartbeat = Wakeup(clock: clock)
        rescue = Wakeup(clock: clock)
        notices = Wakeup(clock: clock)
    }

    /// Waits for `present`; false if shutdown or cancellation came first.
    func awaitPresence() async -> Bool {
        // The wait is cancelled at shutdown, and a cancelled wait returns false.
        await cancelWhenGracefulShutdown { await self.present.wait() }
    }

    /// Shutdown began: claim nothing more and say so in the heartbeat.
    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// How claims hand jobs out, as the last heartbeat read the tenants (`JobStore.claim(mode:)`):
    /// one tenant's own order, or fair share, with the capped tenants locked so caps hold fleet-wide.
    var claimMode: ClaimMode {
        get { mode.withLock { $0 } }
        set { mode.withLock { $0 = newValue } }
    }

    /// The last heartbeat picked this worker to make room for a job that runs alone
    /// (`WorkStore.Heartbeat.makeRoomForAlone`).
    var makeRoomForAlone: Bool {
        get { roomForAlone.load(ordering: .acquiring) }
        set { roomForAlone.store(newValue, ordering: .releasing) }
    }

    func beginDraining() {
        draining.store(true, ordering: .releasing)
        claim.wake()
    }
}
