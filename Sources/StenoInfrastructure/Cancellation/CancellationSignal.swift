import Synchronization

/// A flag that is set once, from any thread, to stop work in flight: a job's cancel flag seen by
/// the heartbeat, a shutdown, or a cancelled task.
///
/// Long-running work either polls `isCancelled` (cheap, lock-free: safe to call from a C callback)
/// or registers a handler to be woken at once. A signal may be linked to a parent, so that one
/// job-wide signal cancels every call made on the job's behalf without those calls being able to
/// cancel the job.
public final class CancellationSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    private let state = Mutex<State>(State())

    private struct State {
        var cancelled = false
        var nextID = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
        var parentRegistration: Registration?
    }

    /// Identifies one registered handler, so that it can be removed when the work is done.
    public struct Registration: Sendable, Hashable {
        fileprivate let id: Int
    }

    public init() {}

    /// A signal that is cancelled when `parent` is, and can also be cancelled on its own.
    /// Unlink it with `unlink(from:)` when the child's work is over, so a long-lived parent does
    /// not collect handlers.
    public convenience init(linkedTo parent: CancellationSignal) {
        self.init()
        let registration = parent.onCancel { [weak self] in self?.cancel() }
        state.withLock { $0.parentRegistration = registration }
    }

    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag and runs every registered handler once, on the calling thread.
    public func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            flag.store(true, ordering: .releasing)
            let handlers = Array(state.handlers.values)
            state.handlers.removeAll()
            return handlers
        }
        handlers.forEach { $0() }
    }

    /// Runs `handler` when the signal is cancelled, or at once if it already is.
    @discardableResult
    public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Registration {
        let registration = state.withLock { state -> Registration? in
            if state.cancelled { return nil }
            let id = state.nextID
            state.nextID += 1
            state.handlers[id] = handler
            return Registration(id: id)
        }
        guard let registration else {
            handler()
            return Registration(id: -1)
        }
        return registration
    }

    public func removeHandler(_ registration: Registration) {
        _ = state.withLock { $0.handlers.removeValue(forKey: registration.id) }
    }

    /// Stops listening to the parent this signal was linked to.
    public func unlink(from parent: CancellationSignal) {
        if let registration = state.withLock({ $0.parentRegistration }) {
            parent.removeHandler(registration)
        }
    }

    /// Waits for `duration`, or less if the signal or the calling task is cancelled first.
    /// Returns whether the full duration passed without a cancel.
    public func sleep(for duration: Duration, clock: any MonotonicClock = .continuous) async -> Bool {
        if isCancelled || Task.isCancelled { return false }
        let wakeup = Wakeup(clock: clock)
        let registration = onCancel { wakeup.wake() }
        defer { removeHandler(registration) }
        return await wakeup.wait(timeout: duration) == .timedOut && !isCancelled
    }
}
