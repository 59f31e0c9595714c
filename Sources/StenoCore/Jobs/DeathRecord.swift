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

    public init(
        exit: WorkerExit?, earlier: [WorkerExit?] = [], seconds: Double, fleetDeaths: Int = 0, fleetSeconds: Double = 0, fleetJobs: Int = 0
    ) {
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

    /// The deaths chance alone predicts for a job that ran this long, at the fleet's rate. With
    /// no running seen in the window the rate is taken as none: nothing else dies.
    public var expectedDeaths: Double {
        fleetSeconds > 0 ? Double(fleetDeaths) / fleetSeconds * seconds : 0
    }

    /// The chance of at least `otherDeaths` deaths by chance (Poisson, at `expectedDeaths`).
    public var chance: Double { Self.poissonTail(atLeast: otherDeaths, mean: expectedDeaths) }

    /// The chance that at least one of the window's jobs, this one and `fleetJobs` others, meets
    /// its worker's death at least this often by chance alone: 1 - (1 - chance)^jobs. A fleet runs
    /// thousands of jobs an hour, so a chance of one in a thousand for one job is, across them,
    /// a near certainty that some innocent job has it; blame weighs this chance, not `chance`.
    public var fleetChance: Double {
        guard chance < 1 else { return 1 }
        return min(1, -Foundation.expm1(Double(fleetJobs + 1) * Foundation.log1p(-chance)))
    }

    /// P(X >= k) for X ~ Poisson(mean). Below the mean, one minus the terms under k; above it,
    /// the terms from k up, summed directly: a tiny tail is not lost to rounding near 1.
    static func poissonTail(atLeast k: Int, mean: Double) -> Double {
        guard k > 0 else { return 1 }
        guard mean > 0 else { return 0 }
        var term = Foundation.exp(-mean)
        if Double(k) <= mean {
            var below = term
            for i in 1..<k {
                term *= mean / Double(i)
                below += term
            }
            return max(0, 1 - below)
        }
        for i in 1...k { term *= mean / Double(i) }
        var tail = 0.0
        var i = k
        while term > tail * 1e-17 {
            tail += term
            i += 1
            term *= mean / Double(i)
        }
        return min(1, tail)
    }
}
