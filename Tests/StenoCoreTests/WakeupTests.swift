import StenoCore
import Testing

@Suite("Wakeup")
struct WakeupTests {
    @Test("a wake sent before the wait is kept once, then waits time out again")
    func keptWakeIsUsedOnce() async {
        let wakeup = Wakeup()
        wakeup.wake()
        wakeup.wake()
        #expect(await wakeup.wait(timeout: .seconds(5)) == .woken)
        #expect(await wakeup.wait(timeout: .milliseconds(30)) == .timedOut)
    }

    @Test("a wait that was woken leaves no stale wake behind for the next wait")
    func noStaleWakeAfterRealOne() async throws {
        let wakeup = Wakeup()
        for _ in 0..<20 {
            // A long timeout, so that on a loaded machine the first wait cannot time out before
            // the wake and leave that wake pending (which is what a wake to nobody must do).
            let waiting = Task { await wakeup.wait(timeout: .seconds(10)) }
            try await Task.sleep(for: .milliseconds(2))
            wakeup.wake()
            #expect(await waiting.value == .woken)
            // The woken wait's timer is cancelled; the old bug made a cancelled timer wake the
            // next wait. Give it time to run, then the next wait must still time out.
            try await Task.sleep(for: .milliseconds(25))
            let started = ContinuousClock.now
            #expect(await wakeup.wait(timeout: .milliseconds(40)) == .timedOut)
            #expect(ContinuousClock.now - started >= .milliseconds(40))
        }
    }

    @Test("a timed-out wait leaves no wake behind")
    func noStaleWakeAfterTimeout() async {
        let wakeup = Wakeup()
        #expect(await wakeup.wait(timeout: .milliseconds(10)) == .timedOut)
        #expect(await wakeup.wait(timeout: .milliseconds(50)) == .timedOut)
    }

    @Test("wakes every waiter at once")
    func wakesAllWaiters() async throws {
        let wakeup = Wakeup()
        let waiters = (0..<4).map { _ in Task { await wakeup.wait(timeout: .seconds(30)) } }
        try await Task.sleep(for: .milliseconds(50))
        wakeup.wake()
        for waiter in waiters { #expect(await waiter.value == .woken) }
    }

    @Test("a wait without a timeout ends only at a wake or a cancel")
    func waitWithoutTimeout() async throws {
        let wakeup = Wakeup()
        let woken = Task { await wakeup.wait(timeout: nil) }
        try await Task.sleep(for: .milliseconds(200))
        wakeup.wake()
        #expect(await woken.value == .woken)
        let cancelled = Task { await wakeup.wait(timeout: nil) }
        try await Task.sleep(for: .milliseconds(200))
        cancelled.cancel()
        #expect(await cancelled.value == .cancelled)
    }

    @Test("a scheduled wake comes at the time last asked for, once, and can be dropped")
    func scheduledWake() async throws {
        let wakeup = Wakeup()
        // The later call replaces the earlier, nearer one.
        wakeup.wake(after: .milliseconds(100))
        wakeup.wake(after: .milliseconds(400))
        let started = ContinuousClock.now
        #expect(await wakeup.wait(timeout: .seconds(10)) == .woken)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(await wakeup.wait(timeout: .milliseconds(300)) == .timedOut, "the replaced wake does not come too")
        // Not positive: at once.
        wakeup.wake(after: .zero)
        #expect(await wakeup.wait(timeout: .milliseconds(20)) == .woken)
        // Dropped: never.
        wakeup.wake(after: .milliseconds(100))
        wakeup.cancelScheduledWake()
        #expect(await wakeup.wait(timeout: .milliseconds(400)) == .timedOut)
    }

    @Test("cancelling the waiting task ends the wait, also when cancelled before it began")
    func cancellation() async throws {
        let wakeup = Wakeup()
        let waiting = Task { await wakeup.wait(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        #expect(await waiting.value == .cancelled)

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await wakeup.wait(timeout: .seconds(30))
        }
        #expect(await early.value == .cancelled)
        #expect(await wakeup.wait(timeout: .milliseconds(20)) == .timedOut)
    }

    @Test("a cancellation signal's sleep ends at the cancel, and runs its full time otherwise")
    func cancellationSignalSleep() async throws {
        let signal = CancellationSignal()
        #expect(await signal.sleep(for: .milliseconds(20)))
        let sleeping = Task { await signal.sleep(for: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(20))
        signal.cancel()
        #expect(await sleeping.value == false)
        #expect(await signal.sleep(for: .seconds(30)) == false)
    }
}
