import Synchronization

/// Wakes one waiting task: a notification arrived, or the poll interval ran out.
/// A signal sent while nobody waits is kept, so none is lost between two waits.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next signal, or after `timeout`.
    func wait(timeout: Duration) async {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self.signal() }
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.pending {
                    state.pending = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
