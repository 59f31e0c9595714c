import Foundation

/// What the fleet knows when a worker's process died while running a job: how this death
/// ended, the job's earlier deaths, and how often workers die anyway (`DeathVerdict.judge`).
public struct DeathRecord: Sendable, Equatable {
    /// How the process ended this time; nil when nobody saw it (its supervisor died with it,
    /// or it ran unsupervised).
    public var exit: WorkerExit?
    /// How the job's earlier attempts ended that were taken back because their worker died,
    /// oldest first; nil for an end nobody saw.
    public var earlier: [WorkerExit?]
    /// Seconds the job has run, over all its attempts, this one included.
    public var seconds: Double
    /// Attempts of other jobs, in the window before this death (`RescuePolicy.deathWindow`),
    /// that ended because their worker died without evidence against them (not a crash).
    public var fleetDeaths: Int
    /// Seconds other jobs ran in the same window: with `fleetDeaths`, the rate at which a
    /// running job meets its worker's death by chance.
    public var fleetSeconds: Double
    /// Other jobs that ran in the same window (an attempt ended in it, or running now). Each of
    /// them could have been as unlucky as this one: the blame is weighed against all of them.
    public var fleetJobs: Int
    /// The job is a chunk long enough to cut (`RescuePolicy.canShrink`): deaths from outside
    /// make it shorter (`RescuePolicy.splitsDyingChunk`) instead of suspect.
    public var canShrink: Bool

    public init(
        exit: WorkerExit?, earlier: [WorkerExit?] = [], seconds: Double, fleetDeaths: Int = 0, fleetSeconds: Double = 0, fleetJobs: Int = 0,
        canShrink: Bool = false
    ) {
        self.canShrink = canShrink
        self.exit = exit
        self.earlier = earlier
        self.seconds = seconds
        self.fleetDeaths = fleetDeaths
        self.fleetSeconds = fleetSeconds
        self.fleetJobs = fleetJobs
    }

    /// Every death of the job, this one included, oldest first.
    public var all: [WorkerExit?] { earlier + [exit] }
    /// Deaths that were crashes of the process itself: evidence against the job.
    public var crashes: [WorkerExit] { all.compactMap { $0 }.filter(\.isCrash) }
    /// Deaths with no evidence either way, or kills from outside.
    public var otherDeaths: Int { all.count - crashes.count }

    /// The prior on the fleet's death rate: a tenth of a death in 30 s of running. Its mean, one
    /// death in 300 s of a job's running, is what a fleet on pre-emptible hosts can see; it is
    /// held so lightly that any window with a few minutes of running outweighs it. Without it, a
    /// quiet fleet (one worker, nothing else running) took the rate as none, and a job whose host
    /// was pre-empted four times was failed as if it had killed its worker.
    public static let priorDeaths = 0.1
    public static let priorSeconds = 30.0

    /// The rate of deaths by chance, per second of running: the prior and the window's deaths
    /// over the prior's and the window's seconds (the mean of the Gamma posterior).
    public var deathRate: Double { (Self.priorDeaths + Double(fleetDeaths)) / (Self.priorSeconds + fleetSeconds) }

    /// The deaths chance alone predicts for a job that ran this long, at the fleet's rate.
    public var expectedDeaths: Double { deathRate * seconds }

    /// The chance of at least `otherDeaths` deaths by chance. The rate itself is uncertain (a
    /// Gamma posterior of shape `priorDeaths + fleetDeaths` over `priorSeconds + fleetSeconds`),
    /// so the deaths in `seconds` are negative binomial: Poisson's tail where the window saw
    /// much, a heavy one where it saw little.
    public var chance: Double {
        Self.negativeBinomialTail(
            atLeast: otherDeaths, shape: Self.priorDeaths + Double(fleetDeaths), exposure: Self.priorSeconds + fleetSeconds, seconds: seconds)
    }

    /// The chance that at least one of the window's jobs, this one and `fleetJobs` others, meets
    /// its worker's death at least this often by chance alone: 1 - (1 - chance)^jobs. A fleet runs
    /// thousands of jobs an hour, so a chance of one in a thousand for one job is, across them,
    /// a near certainty that some innocent job has it; blame weighs this chance, not `chance`.
    public var fleetChance: Double {
        guard chance < 1 else { return 1 }
        return min(1, -Foundation.expm1(Double(fleetJobs + 1) * Foundation.log1p(-chance)))
    }

    /// P(X >= k) for X negative binomial: the count of events in `seconds` at a rate drawn from
    /// Gamma(`shape`, `exposure`). Terms are taken in logarithms (a long window's p^shape
    /// underflows). Below the mean, one minus the terms under k; above it, the terms from k up,
    /// summed directly: a tiny tail is not lost to rounding near 1.
    public static func negativeBinomialTail(atLeast k: Int, shape: Double, exposure: Double, seconds: Double) -> Double {
        guard k > 0 else { return 1 }
        guard seconds > 0, shape > 0 else { return 0 }
        let logP = Foundation.log(exposure / (exposure + seconds))
        let logQ = Foundation.log(seconds / (exposure + seconds))
        func logTerm(_ i: Int) -> Double {
            Foundation.lgamma(shape + Double(i)) - Foundation.lgamma(shape) - Foundation.lgamma(Double(i) + 1) + shape * logP + Double(i) * logQ
        }
        let mean = shape * seconds / exposure
        if Double(k) <= mean {
            let below = (0..<k).reduce(0.0) { $0 + Foundation.exp(logTerm($1)) }
            return max(0, 1 - below)
        }
        var term = Foundation.exp(logTerm(k))
        var tail = 0.0
        var i = k
        while term > tail * 1e-17 && term > 0 {
            tail += term
            term *= (shape + Double(i)) / Double(i + 1) * Foundation.exp(logQ)
            i += 1
        }
        return min(1, tail)
    }
}
