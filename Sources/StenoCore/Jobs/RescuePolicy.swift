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
    /// Deaths of its worker, none a crash, after which a chunk job is cut in two instead of tried
    /// whole again (`splitsDyingChunk`).
    public static let splitAfterDeaths = 2
    /// The shortest piece, in seconds of audio, a dying chunk is cut into: shorter, a request's
    /// own cost outweighs the work a death loses.
    public static let shortestDyingPiece = 3.0

    /// Whether a chunk of `seconds` can still be cut for dying: 8 s or more. The cut lies in a
    /// pause within a quarter of a half's length of the middle (`ChunkPlanner.split`), so each
    /// piece keeps at least 3/8 of the chunk: `shortestDyingPiece`.
    public static func canShrink(chunkSeconds seconds: Double) -> Bool {
        seconds >= shortestDyingPiece * 8 / 3
    }

    /// Whether a chunk job whose worker died `deaths` times under it, `crashes` of them crashes
    /// of the process, is cut in two before it runs again. Deaths from outside (kills,
    /// pre-emptions, a host lost) say nothing against the chunk, but a long chunk on a fleet that
    /// loses workers often may never finish whole: a 15 s chunk was killed 14 times in a row
    /// where workers died every few seconds. Halves are half as likely to be running when the
    /// next death comes, and each finished half is kept. A crash is evidence against the job,
    /// which is quarantined and counted towards failing it instead, so a poison chunk still fails
    /// at the crash budget rather than splitting into fresh jobs.
    public static func splitsDyingChunk(deaths: Int, crashes: Int, seconds: Double) -> Bool {
        crashes == 0 && deaths >= splitAfterDeaths && canShrink(chunkSeconds: seconds)
    }

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
