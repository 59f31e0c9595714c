/// When a running job is taken back from the worker that holds its lease.
///
/// A worker's listening session holds an advisory lock for as long as the process lives
/// (migration 0012). A lease whose owner's lock is gone belongs to a dead process: taken back
/// at once, without waiting for the lease, and without charging the job an attempt. A lease
/// whose owner still holds its lock belongs to a process that is slow or paused: it keeps its
/// jobs, however late its heartbeat, until its heartbeat is older than `hangLimit`.
public struct RescuePolicy: Sendable, Equatable {
    /// How long after the database server started no lock counts as missing: every session
    /// ended with the old server, and live workers need a moment to take their locks again.
    public var startGrace: Duration
    /// How long a worker that holds its lock may go without a heartbeat before its jobs are
    /// taken back anyway: a process stuck in a loop or a deadlock, not dead.
    public var hangLimit: Duration
    /// How many deaths of its worker blamed on a job (crashes, and deaths beyond chance:
    /// `DeathVerdict`) fail it for good. Each such rescue gives the attempt back, so without a
    /// budget a job that crashes its worker would be retried forever.
    public var crashBudget: Int
    /// The longest wait before a suspected job runs again (`DeathVerdict.quarantine`): the wait
    /// starts at a second and doubles with each death that suspects the job, up to this.
    public var longestQuarantineWait: Duration
    /// How many deaths with no crash a job must have been at, beyond chance, before it is
    /// suspected and runs alone (one crash is enough).
    public static let aloneAfter = 2
    /// How long a job due to run alone may wait for a worker with nothing in flight before one
    /// worker makes room for it: on a loaded fleet every slot is refilled as a job ends, so no
    /// worker would ever empty by chance. The least loaded live worker then claims nothing more
    /// until its jobs are done, and takes the job (`WorkStore.Heartbeat.makeRoomForAlone`).
    public static let aloneRoomAfter = Duration.seconds(10)
    /// How far back the fleet's death rate is read (`DeathRecord.fleetDeaths`).
    public static let deathWindow = Duration.seconds(3600)
    /// How long a rescuer waits between seeing a worker's lock gone and taking its jobs: a live
    /// worker whose listening session broke takes its lock again within a poll.
    public static let confirmDelay = Duration.milliseconds(500)

    public init(
        startGrace: Duration = .seconds(10), hangLimit: Duration = .seconds(300), crashBudget: Int = 4,
        longestQuarantineWait: Duration = Self.defaultLongestQuarantineWait
    ) {
        precondition(crashBudget > Self.aloneAfter, "the budget leaves room to run the job alone")
        precondition(longestQuarantineWait >= .seconds(1), "a quarantine waits at least its first second")
        self.startGrace = startGrace
        self.hangLimit = hangLimit
        self.crashBudget = crashBudget
        self.longestQuarantineWait = longestQuarantineWait
    }

    /// `longestQuarantineWait` unless `--quarantine-max-seconds` says otherwise.
    public static let defaultLongestQuarantineWait = Duration.seconds(60)

    /// The advisory lock namespace of worker liveness (`pg_locks.classid`): "Sten".
    public static let lockNamespace: Int32 = 0x5374_656E
    /// The advisory lock namespace of worker supervisors (`workers.supervisor_key`): "Stes".
    /// While a dead worker's supervisor holds its lock, the supervisor takes the jobs back,
    /// with the evidence of how the process ended.
    public static let supervisorNamespace: Int32 = 0x5374_6573
}
