import Foundation
import StenoCore
import Testing

@Suite("DeathVerdict: a job is blamed for its worker's deaths only on evidence")
struct DeathVerdictTests {
    static let policy = RescuePolicy(startGrace: .seconds(10), hangLimit: .seconds(300), crashBudget: 4)
    static let segv = WorkerExit.signaled(11)
    static let kill = WorkerExit.signaled(9)

    @Test("a crash signal is evidence by itself: quarantined at the first, failed at the budget, the signal named")
    func crashesQuarantineThenFail() {
        let first = DeathVerdict.judge(DeathRecord(exit: Self.segv, seconds: 0.2, fleetDeaths: 50, fleetSeconds: 100), policy: Self.policy)
        guard case .quarantine(let wait, let reason) = first else {
            Issue.record("a first crash quarantines, got \(first)")
            return
        }
        #expect(wait == .seconds(1))
        #expect(reason.contains("crashed once") && reason.contains("SIGSEGV"), "\(reason)")
        let third = DeathVerdict.judge(DeathRecord(exit: Self.segv, earlier: [Self.segv, Self.segv], seconds: 0.6), policy: Self.policy)
        guard case .quarantine(let longer, _) = third else {
            Issue.record("a third crash still quarantines, got \(third)")
            return
        }
        #expect(longer == .seconds(4), "the wait doubles with each death")
        let fourth = DeathVerdict.judge(
            DeathRecord(exit: .signaled(6), earlier: [Self.segv, Self.segv, Self.segv], seconds: 0.8, fleetDeaths: 500, fleetSeconds: 10),
            policy: Self.policy)
        guard case .fail(let why) = fourth else {
            Issue.record("the fourth crash fails the job, however often workers die, got \(fourth)")
            return
        }
        #expect(why.contains("4 times") && why.contains("SIGSEGV ×3") && why.contains("SIGABRT"), "\(why)")
    }

    @Test("kills from outside in a fleet where workers die often are chance: never suspected, never failed")
    func outsideKillsAtTheFleetRateAreChance() {
        // The issue's run: 23 kills in 108 s over 4 workers at concurrency 4, so a running job
        // meets a death about every 19 s; a job that ran 4 × 15 s and died each time.
        let record = DeathRecord(exit: Self.kill, earlier: [Self.kill, nil, Self.kill], seconds: 60, fleetDeaths: 80, fleetSeconds: 1500)
        #expect(record.expectedDeaths > 3)
        #expect(DeathVerdict.judge(record, policy: Self.policy) == .requeue)
        // Six deaths of a long job are still within chance there.
        let six = DeathRecord(exit: Self.kill, earlier: Array(repeating: Self.kill, count: 5), seconds: 120, fleetDeaths: 80, fleetSeconds: 1500)
        #expect(DeathVerdict.judge(six, policy: Self.policy) == .requeue)
    }

    @Test("a chunk long enough to cut that keeps dying from outside runs again at once, however unlikely its deaths: it is cut, not suspected")
    func dyingChunkIsRequeuedToBeSplit() {
        // Killed back to back, each time just after it started: far beyond the fleet's rate.
        let unlikely = DeathRecord(
            exit: Self.kill, earlier: Array(repeating: Self.kill, count: 5), seconds: 3, fleetDeaths: 2, fleetSeconds: 2000, fleetJobs: 5)
        guard case .fail = DeathVerdict.judge(unlikely, policy: Self.policy) else {
            Issue.record("the same deaths blame a job that cannot shrink")
            return
        }
        var chunk = unlikely
        chunk.canShrink = true
        #expect(DeathVerdict.judge(chunk, policy: Self.policy) == .requeue)
        // A crash is evidence still: a poison chunk is quarantined, and fails at the budget.
        var crashing = DeathRecord(exit: Self.segv, earlier: [Self.kill], seconds: 3, fleetDeaths: 2, fleetSeconds: 2000, fleetJobs: 5, canShrink: true)
        guard case .quarantine = DeathVerdict.judge(crashing, policy: Self.policy) else {
            Issue.record("a crash of a chunk that can shrink quarantines it")
            return
        }
        crashing.earlier = [Self.segv, Self.segv, Self.segv]
        guard case .fail = DeathVerdict.judge(crashing, policy: Self.policy) else {
            Issue.record("a chunk that crashed its worker four times fails")
            return
        }
    }

    @Test("a chunk is cut in two after its second death from outside, while it is 8 s or longer; never after a crash")
    func dyingChunksSplitDownToAFloor() {
        #expect(!RescuePolicy.splitsDyingChunk(deaths: 1, crashes: 0, seconds: 15))
        #expect(RescuePolicy.splitsDyingChunk(deaths: 2, crashes: 0, seconds: 15))
        #expect(RescuePolicy.splitsDyingChunk(deaths: 14, crashes: 0, seconds: 8))
        #expect(!RescuePolicy.splitsDyingChunk(deaths: 14, crashes: 0, seconds: 7.9), "a piece could be under 3 s")
        #expect(!RescuePolicy.splitsDyingChunk(deaths: 3, crashes: 1, seconds: 60), "a crash is the job's own: it is quarantined and counted, not cut")
        #expect(RescuePolicy.canShrink(chunkSeconds: 8) && !RescuePolicy.canShrink(chunkSeconds: 7.99))
    }

    @Test("a job killed often from outside, then beside a crash, waits a second: the wait grows with suspicion, not with every death")
    func waitGrowsWithSuspicionOnly() {
        let record = DeathRecord(exit: Self.segv, earlier: Array(repeating: Self.kill, count: 6), seconds: 120, fleetDeaths: 80, fleetSeconds: 1500)
        guard case .quarantine(let wait, _) = DeathVerdict.judge(record, policy: Self.policy) else {
            Issue.record("a crash quarantines")
            return
        }
        #expect(wait == .seconds(1))
    }

    @Test("the quarantine's doubling stops at the policy's longest wait: 60 s unless the worker is told otherwise")
    func quarantineWaitStopsAtThePolicysLongest() {
        // Ten crashes under a budget of 20: doubling alone would wait 2^9 = 512 s.
        let record = DeathRecord(exit: Self.segv, earlier: Array(repeating: Self.segv, count: 9), seconds: 1)
        let byDefault = RescuePolicy(crashBudget: 20)
        #expect(byDefault.longestQuarantineWait == .seconds(60))
        guard case .quarantine(let wait, let reason) = DeathVerdict.judge(record, policy: byDefault) else {
            Issue.record("ten crashes under a budget of 20 quarantine")
            return
        }
        #expect(wait == .seconds(60))
        #expect(reason.contains("runs alone after 60 s"), "\(reason)")
        let short = RescuePolicy(crashBudget: 20, longestQuarantineWait: .seconds(5))
        guard case .quarantine(let shorter, let why) = DeathVerdict.judge(record, policy: short) else {
            Issue.record("the longest wait changes the wait, not the verdict")
            return
        }
        #expect(shorter == .seconds(5))
        #expect(why.contains("runs alone after 5 s"), "\(why)")
        // Below the longest wait, the doubling is the same whatever the longest is.
        let second = DeathRecord(exit: Self.segv, earlier: [Self.segv], seconds: 1)
        #expect(DeathVerdict.judge(second, policy: short) == DeathVerdict.judge(second, policy: byDefault))
    }

    @Test("deaths beyond chance are blamed: suspected at two, failed at the budget, with the rate and the chance named")
    func deathsBeyondChanceAreBlamed() {
        // Workers rarely die (2 deaths in 10,000 s of running) but this job's died each time it
        // ran, for a second at most: an OOM kill it causes looks like any other SIGKILL.
        let once = DeathRecord(exit: Self.kill, seconds: 1, fleetDeaths: 2, fleetSeconds: 10_000)
        #expect(DeathVerdict.judge(once, policy: Self.policy) == .requeue, "one death is never enough")
        let twice = DeathRecord(exit: Self.kill, earlier: [Self.kill], seconds: 2, fleetDeaths: 2, fleetSeconds: 10_000)
        guard case .quarantine(let wait, let reason) = DeathVerdict.judge(twice, policy: Self.policy) else {
            Issue.record("two deaths far beyond chance make it suspected")
            return
        }
        #expect(wait == .seconds(2))
        #expect(reason.contains("twice") && reason.contains("2 such deaths in 10000 s"), "\(reason)")
        let four = DeathRecord(exit: nil, earlier: [Self.kill, Self.kill, nil], seconds: 4, fleetDeaths: 2, fleetSeconds: 10_000)
        guard case .fail(let why) = DeathVerdict.judge(four, policy: Self.policy) else {
            Issue.record("four deaths far beyond chance fail it")
            return
        }
        #expect(why.contains("4 times (SIGKILL ×2, unseen ×2)") && why.contains("a chance of below 1 in"), "\(why)")
    }

    @Test("blame weighs every job of the hour: one innocent among hundreds that died four times briefly is suspected, not failed; a job that keeps killing its worker is failed at more deaths")
    func blameWeighsTheFleetsJobs() {
        // A clean-clone kill storm's numbers: 53 deaths in 519 s of 200 other jobs' running; a
        // chunk job died at each of four attempts, 3.84 s of running in all.
        let unlucky = DeathRecord(exit: nil, earlier: [Self.kill, Self.kill, Self.kill], seconds: 3.84, fleetDeaths: 53, fleetSeconds: 519, fleetJobs: 200)
        #expect(unlucky.chance < DeathVerdict.blameBelow, "for one job alone it is below one in a thousand")
        #expect(unlucky.fleetChance > 0.1, "among 201 jobs one so unlucky is likely: \(unlucky.fleetChance)")
        guard case .quarantine(_, let reason) = DeathVerdict.judge(unlucky, policy: Self.policy) else {
            Issue.record("an unlucky job among many is suspected, not failed")
            return
        }
        #expect(reason.contains("that one of the hour's 201 jobs would die so often"), "\(reason)")
        // The same job alone in its hour is blamed: nothing else could have been that unlucky.
        let alone = DeathRecord(exit: nil, earlier: [Self.kill, Self.kill, Self.kill], seconds: 3.84, fleetDeaths: 53, fleetSeconds: 519)
        #expect(alone.fleetChance == alone.chance)
        guard case .fail = DeathVerdict.judge(alone, policy: Self.policy) else {
            Issue.record("with no other job in the hour, the one-job chance decides")
            return
        }
        // A job that kills its worker within a second, every time, in the same storm: eight deaths.
        let eight = DeathRecord(exit: Self.kill, earlier: Array(repeating: Self.kill, count: 7), seconds: 8, fleetDeaths: 53, fleetSeconds: 519, fleetJobs: 200)
        #expect(eight.fleetChance < DeathVerdict.blameBelow, "\(eight.fleetChance)")
        guard case .fail(let why) = DeathVerdict.judge(eight, policy: Self.policy) else {
            Issue.record("eight deaths in 8 s of running are beyond chance for any of the hour's jobs")
            return
        }
        #expect(why.contains("8 times (SIGKILL ×8)"), "\(why)")
    }

    @Test("the chance among the hour's jobs: 1 - (1 - p)^jobs, exact for a tiny p and 1 at p = 1")
    func fleetChance() {
        let tiny = DeathRecord(exit: nil, earlier: [nil, nil, nil], seconds: 1, fleetDeaths: 1, fleetSeconds: 10_000, fleetJobs: 999)
        #expect(tiny.fleetChance.isApproximatelyEqual(to: tiny.chance * 1000, within: tiny.chance * 1000 * 1e-6))
        #expect(DeathRecord(exit: Self.segv, seconds: 1, fleetJobs: 5).fleetChance == 1, "no death without a crash: certain")
        // One death where one is expected: 1 - e^-1 for one job, 1 - (e^-1)^6 for six.
        let even = DeathRecord(exit: nil, seconds: 1, fleetDeaths: 1, fleetSeconds: 1, fleetJobs: 5)
        #expect(even.fleetChance.isApproximatelyEqual(to: 1 - pow(1 - even.chance, 6), within: 1e-9))
    }

    @Test("a lone worker whose host is pre-empted four times does not fail its job: with nothing else running, the rate's prior stands in")
    func quietFleetToleratesOutsideDeaths() {
        // One worker, one 60 s chunk, killed from outside about half-way each time.
        let preempted = DeathRecord(exit: nil, earlier: [Self.kill, nil, Self.kill], seconds: 4 * 30)
        #expect(preempted.expectedDeaths > 0, "a fleet that saw nothing still expects deaths at the prior's rate")
        #expect(preempted.chance > DeathVerdict.blameBelow, "\(preempted.chance)")
        if case .fail(let why) = DeathVerdict.judge(preempted, policy: Self.policy) {
            Issue.record("four kills of a job that ran 2 minutes on a quiet fleet failed it: \(why)")
        }
        // Eight of them, each after half a minute, are still not evidence against it.
        let eight = DeathRecord(exit: Self.kill, earlier: Array(repeating: Self.kill, count: 7), seconds: 8 * 30)
        if case .fail(let why) = DeathVerdict.judge(eight, policy: Self.policy) {
            Issue.record("eight kills in 4 minutes of running on a quiet fleet failed the job: \(why)")
        }
        // A job that kills its worker within a second, every time, is still failed at the budget.
        let poison = DeathRecord(exit: nil, earlier: [Self.kill, Self.kill, nil], seconds: 4)
        guard case .fail = DeathVerdict.judge(poison, policy: Self.policy) else {
            Issue.record("four deaths in 4 s of running fail the job on a quiet fleet too")
            return
        }
    }

    @Test("the negative binomial tail: geometric at shape 1, Poisson's where the window saw much, heavier where it saw little")
    func negativeBinomialTail() {
        // Shape 1: P(X >= k) = q^k, q = t / (β + t).
        let geometric = DeathRecord.negativeBinomialTail(atLeast: 3, shape: 1, exposure: 30, seconds: 10)
        #expect(geometric.isApproximatelyEqual(to: pow(0.25, 3), within: 1e-12))
        // A rate known from a long window: Poisson(1). P(X >= 1) = 1 - e^-1; P(X >= 2) = 1 - 2/e.
        let known = { (k: Int) in DeathRecord.negativeBinomialTail(atLeast: k, shape: 1e6, exposure: 1e6, seconds: 1) }
        #expect(known(1).isApproximatelyEqual(to: 1 - 0.3678794, within: 1e-6))
        #expect(known(2).isApproximatelyEqual(to: 1 - 2 * 0.3678794, within: 1e-6))
        // Far above the mean, the tail is summed from k up and stays exact at tiny values.
        let tiny = DeathRecord.negativeBinomialTail(atLeast: 8, shape: 1, exposure: 1000, seconds: 1)
        #expect(tiny.isApproximatelyEqual(to: pow(1.0 / 1001, 8), within: pow(1.0 / 1001, 8) * 1e-9))
        // The same mean from a short window has the heavier tail.
        let short = DeathRecord.negativeBinomialTail(atLeast: 4, shape: 1, exposure: 10, seconds: 10)
        #expect(short > known(4))
        #expect(DeathRecord.negativeBinomialTail(atLeast: 0, shape: 1, exposure: 1, seconds: 1) == 1)
    }

    @Test("exits read as signals and statuses, and back; only crash signals are crashes")
    func workerExits() {
        #expect(WorkerExit(waitStatus: 11) == .signaled(11))
        #expect(WorkerExit(waitStatus: 0x8B) == .signaled(11), "the core-dump bit is not part of the signal")
        #expect(WorkerExit(waitStatus: 3 << 8) == .exited(3))
        for exit in [WorkerExit.signaled(11), .signaled(9), .signaled(40), .exited(3)] {
            #expect(WorkerExit("\(exit)") == exit)
        }
        #expect([4, 5, 6, 7, 8, 11, 31].allSatisfy { WorkerExit.signaled($0).isCrash })
        #expect(![1, 2, 3, 9, 15].contains { WorkerExit.signaled($0).isCrash })
        #expect(!WorkerExit.exited(1).isCrash, "an exit the program chose is no crash")
    }
}

extension Double {
    fileprivate func isApproximatelyEqual(to other: Double, within tolerance: Double) -> Bool { abs(self - other) <= tolerance }
}
