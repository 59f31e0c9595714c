public import Foundation
import StenoCore
public import StenoInfrastructure
import Synchronization

/// A clock that moves only when the test moves it, so that leases, backoffs and timeouts are
/// tested without waiting for them.
///
/// Sleeps end, in deadline order, when `advance(by:)` reaches their deadline; a cancelled sleep
/// throws `CancellationError` as `Task.sleep` does. `sleepers(atLeast:)` lets a test wait
/// until the code under test has reached its wait before moving time, which is what makes
/// these tests deterministic rather than a race against the scheduler.
///
/// A clock made `advancingOnSleep` moves itself to each sleep's deadline at once: the code
/// under test runs through its waits without waiting, and `sleeps` says what it waited for.
public final class ManualClock: MonotonicClock {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Instant
        var date: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [Watcher] = []
        var nextID: UInt64 = 0
        var sleeps: [Duration] = []
    }

    private let state: Mutex<State>
    private let advancingOnSleep: Bool

    /// A clock at `start` (a real instant, so instants from this clock and the continuous one
    /// compare sensibly), with the wall time `date`.
    public init(
        start: Instant = ContinuousClock.now, date: Date = Date(timeIntervalSince1970: 1_800_000_000), advancingOnSleep: Bool = false
    ) {
        state = Mutex(State(now: start, date: date))
        self.advancingOnSleep = advancingOnSleep
    }

    /// Every sleep asked for, in order: how long each was when it began.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    public var now: Instant { state.withLock { $0.now } }
    public var date: Date { state.withLock { $0.date } }
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are waiting for the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The nearest deadline of a waiting sleep.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.sleeps.append(deadline - state.now)
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        if advancingOnSleep {
            let step = deadline - now
            if step > .zero { advance(by: step) }
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case now, cancelled, waiting([Watcher]) }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .now }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let count = state.sleepers.count
                    let satisfied = state.watchers.filter { $0.count <= count }
                    state.watchers.removeAll { $0.count <= count }
                    return .waiting(satisfied)
                }
                switch outcome {
                case .now: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting(let satisfied): for watcher in satisfied { watcher.continuation.resume() }
                }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration` and ends every sleep whose deadline it reached, the
    /// earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            state.date = state.date.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { state.sleepers.removeValue(forKey: id) }
            return due.map(\.value)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock on by `duration` and returns once as many sleeps wait as before: the code
    /// under test has done what the time brought and waits again. For code whose every loop
    /// goes back to a sleep on this clock, as a worker's and a server's services do.
    public func advanceAndSettle(by duration: Duration) async {
        let waiting = sleeperCount
        advance(by: duration)
        await sleepers(atLeast: waiting)
    }

    /// Moves the clock to the nearest waiting deadline, if any, and ends the sleeps due then.
    @discardableResult
    public func advanceToNextDeadline() -> Duration? {
        guard let next = nextDeadline else { return nil }
        let step = max(.zero, next - now)
        advance(by: step)
        return step
    }

    /// Returns once at least `count` sleeps are waiting: the code under test has reached its
    /// waits, and moving the clock now ends them.
    public func sleepers(atLeast count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append(Watcher(count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
