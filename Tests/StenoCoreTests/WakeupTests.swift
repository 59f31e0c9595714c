import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Testing

/// Every wait here times out on a manual clock the test moves, after the code under test has
/// reached its wait: nothing depends on how fast the machine is.
@Suite("Wakeup", .timeLimit(.minutes(1)))
struct WakeupTests {
    /// Starts `wait(timeout:)` in a task and returns once its timer waits on the clock.
    private func waiting(_ wakeup: Wakeup, _ clock: ManualClock, timeout: Duration, sleepers: Int = 1) async -> Task<Wakeup.Reason, Never> {
        let task = Task { await wakeup.wait(timeout: timeout) }
        await clock.sleepers(atLeast: sleepers)
        return task
    }

    @Test("a wake sent before the wait is kept once, then waits time out again")
    func keptWakeIsUsedOnce() async {
        let clock = ManualClock()
        let wakeup = Wakeup(clock: clock)
        wakeup.wake()
        wakeup.wake()
        #expect(await wakeup.wait(timeout: .seconds(5)) == .woken)
        let next = await waiting(wakeup, clock, timeout: .milliseconds(30))
        clock.advance(by: .milliseconds(30))
        #expect(await next.value == .timedOut)
    }

    @Test("a wait that was woken leaves no stale wake behind for the next wait")
    func noStaleWakeAfterRealOne() async {
        let clock = ManualClock()
        let wakeup = Wakeup(clock: clock)
        for _ in 0..<20 {
            let woken = await waiting(wakeup, clock, timeout: .seconds(10))
            wakeup.wake()
            #expect(await woken.value == .woken)
            // The woken wait's timer is cancelled, and leaves the clock; the old bug made a
            // cancelled timer wake the next wait.
            #expect(clock.sleeperCount == 0)
            let next = await waiting(wakeup, clock, timeout: .milliseconds(40))
            clock.advance(by: .milliseconds(40))
            #expect(await next.value == .timedOut)
        }
    }

    @Test("a timed-out wait leaves no wake behind")
    func noStaleWakeAfterTimeout() async {
        let clock = ManualClock()
        let wakeup = Wakeup(clock: clock)
        let first = await waiting(wakeup, clock, timeout: .milliseconds(10))
        clock.advance(by: .milliseconds(10))
        #expect(await first.value == .timedOut)
        let second = await waiting(wakeup, clock, timeout: .milliseconds(50))
        clock.advance(by: .milliseconds(50))
        #expect(await second.value == .timedOut)
    }

    @Test("wakes every waiter at once")
    func wakesAllWaiters() async {
        let clock = ManualClock()
        let wakeup = Wakeup(clock: clock)
        var waiters: [Task<Wakeup.Reason, Never>] = []
        for count in 1...4 {
            waiters.append(await waiting(wakeup, clock, timeout: .seconds(30), sleepers: count))
        }
        wakeup.wake()
        for waiter in waiters { #expect(await waiter.value == .woken) }
        #expect(clock.sleeperCount == 0)
    }

    @Test("a wait without a timeout ends only at a wake or a cancel")
    func waitWithoutTimeout() async throws {
        let clock = ManualClock()
        let wakeup = Wakeup(clock: clock)
        let woken = Task { await wakeup.wait(timeout: nil) }
        // However long passes, it waits; whether the wake finds it waiting or is kept for it,
        // it ends woken.
        clock.advance(by: .seconds(3600))
        wakeup.wake()
        #expect(await woken.value == .woken)
        let cancelled = Task { await wakeup.wait(timeout: nil) }
        clock.advance(by: .seconds(3600))
        cancelled.cancel()
        #expect(await cancelled.value == .cancelled)
        #expect(clock.sleeps.isEmpty, "no timer for a wait without a timeout")
    }

    @Test("a scheduled wake comes at the time last asked for, once, and can be dropped")
    func scheduledWake() async {
        let clock = ManualClock()
        let start = clock.now
        let wakeup = Wakeup(clock: clock)
        // The later call replaces the earlier, nearer one: only the later is on the clock.
        wakeup.wake(after: .milliseconds(100))
        wakeup.wake(after: .milliseconds(400))
        await clock.sleepers(atLeast: 1)
        #expect(clock.sleeperCount == 1)
        #expect(clock.nextDeadline == start + .milliseconds(400))
        clock.advance(by: .milliseconds(400))
        #expect(await wakeup.wait(timeout: .seconds(10)) == .woken)
        let after = await waiting(wakeup, clock, timeout: .milliseconds(300))
        clock.advance(by: .milliseconds(300))
        #expect(await after.value == .timedOut, "the replaced wake does not come too")
        // Not positive: at once, without the clock.
        wakeup.wake(after: .zero)
        #expect(await wakeup.wait(timeout: .milliseconds(20)) == .woken)
        // Dropped: never.
        wakeup.wake(after: .milliseconds(100))
        wakeup.cancelScheduledWake()
        clock.advance(by: .seconds(1))
        let dropped = await waiting(wakeup, clock, timeout: .milliseconds(400))
        #expect(clock.sleeperCount == 1, "only the wait's own timer")
        clock.advance(by: .milliseconds(400))
        #expect(await dropped.value == .timedOut)
    }

    @Test("cancelling the waiting task ends the wait, also when cancelled before it began")
    func cancellation() async {
        let clock = ManualClock()
        let wakeup = Wakeup(clock: clock)
        let waiting = await waiting(wakeup, clock, timeout: .seconds(30))
        waiting.cancel()
        #expect(await waiting.value == .cancelled)

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await wakeup.wait(timeout: .seconds(30))
        }
        #expect(await early.value == .cancelled)
        let next = await self.waiting(wakeup, clock, timeout: .milliseconds(20))
        clock.advance(by: .milliseconds(20))
        #expect(await next.value == .timedOut)
    }

    @Test("a cancellation signal's sleep ends at the cancel, and runs its full time otherwise")
    func cancellationSignalSleep() async {
        let clock = ManualClock()
        let signal = CancellationSignal()
        let full = Task { await signal.sleep(for: .milliseconds(20), clock: clock) }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(20))
        #expect(await full.value)
        let sleeping = Task { await signal.sleep(for: .seconds(30), clock: clock) }
        await clock.sleepers(atLeast: 1)
        signal.cancel()
        #expect(await sleeping.value == false)
        #expect(await signal.sleep(for: .seconds(30), clock: clock) == false)
    }
}
