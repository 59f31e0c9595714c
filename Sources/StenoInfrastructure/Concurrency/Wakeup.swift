import Synchronization

/// Wakes waiting loops early: a notification arrived, a job finished, shutdown began.
///
/// A wake sent while nobody waits is kept (once), so none is lost between two waits. A wait that
/// ends by its timeout or by cancellation leaves nothing behind: each wait's timer can resume
/// only that wait, never a later one. (An earlier version let a cancelled timer fall through to
/// `wake()`, which left a stale wake after every real one and turned idle loops into busy ones.)
public final class Wakeup: Sendable {
    /// Why a wait returned.
    public enum Reason: Sendable, Equatable {
        case woken
        case timedOut
        case cancelled
    }

    private struct Waiter {
        var continuation: CheckedContinuation<Reason, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var pending = false
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        /// The wake `wake(after:)` scheduled, if it has not happened yet.
        var scheduled: Task<Void, Never>?
    }

    private let state = Mutex(State())
    /// The clock that times out waits and brings scheduled wakes.
    private let clock: any MonotonicClock

    public init(clock: any MonotonicClock = .continuous) {
        self.clock = clock
    }

    /// Wakes every waiter now, or the next wait if nobody waits.
    public func wake() {
        let waiters = state.withLock { state -> [Waiter] in
            guard !state.waiters.isEmpty else {
                state.pending = true
                return []
            }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: .woken)
        }
    }

    /// Wakes in `delay` (now if it is not positive); a later call replaces the wake scheduled
    /// before, so a loop is woken once, at the time last asked for.
    public func wake(after delay: Duration) {
        guard delay > .zero else {
            wake()
            return
        }
        let timer = Task { [weak self, clock] in
            guard (try? await clock.sleep(for: delay)) != nil else { return }
            self?.wake()
        }
        let replaced = state.withLock { state -> Task<Void, Never>? in
            defer { state.scheduled = timer }
            return state.scheduled
        }
        replaced?.cancel()
    }

    /// Drops the wake `wake(after:)` scheduled, if it has not happened yet.
    public func cancelScheduledWake() {
        state.withLock { state -> Task<Void, Never>? in
            defer { state.scheduled = nil }
            return state.scheduled
        }?.cancel()
    }

    /// Returns at the next wake (or at once for a wake kept from before), after `timeout` (if
    /// any), or when the calling task is cancelled.
    @discardableResult
    public func wait(timeout: Duration?) async -> Reason {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reason, Never>) in
                let immediate = state.withLock { state -> Reason? in
                    if state.pending {
                        state.pending = false
                        return .woken
                    }
                    if Task.isCancelled { return .cancelled }
                    state.waiters[id] = Waiter(continuation: continuation, timer: nil)
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                    return
                }
                guard let timeout else { return }
                // The timer resumes this wait only; cancelled when the wait ends otherwise.
                let timer = Task { [weak self, clock] in
                    guard (try? await clock.sleep(for: timeout)) != nil else { return }
                    self?.resume(id, .timedOut)
                }
                let installed = state.withLock { state -> Bool in
                    guard state.waiters[id] != nil else { return false }
                    state.waiters[id]?.timer = timer
                    return true
                }
                if !installed { timer.cancel() }
            }
        } onCancel: {
            resume(id, .cancelled)
        }
    }

    private func resume(_ id: UInt64, _ reason: Reason) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: reason)
    }
}
