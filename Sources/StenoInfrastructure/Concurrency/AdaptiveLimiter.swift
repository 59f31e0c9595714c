import Synchronization

/// Bounds the requests in flight towards one backend by an `AIMDWindow`: callers wait for a
/// permit, and each reports how its request ended, which moves the window.
public final class AdaptiveLimiter: Sendable {
    public enum Outcome: Sendable {
        /// The backend answered (any HTTP answer: it is up and keeping up).
        case answered
        /// The request timed out or stalled: the backend is not keeping up.
        case timedOut
        /// Neither (cancelled, refused before sending): the window does not move.
        case other
    }

    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: ~Copyable {
        var window: AIMDWindow
        var inFlight = 0
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(maximum: Int) {
        state = Mutex(State(window: AIMDWindow(maximum: maximum)))
    }

    /// The current limit, for metrics and logs.
    public var limit: Double { state.withLock { $0.window.limit } }
    public var inFlight: Int { state.withLock { $0.inFlight } }
    /// Callers waiting for a permit.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` holding a permit; `classify` says how it ended, to move the window.
    public func withPermit<Result>(
        classify: (Swift.Result<Result, any Error>) -> Outcome, _ body: () async throws -> Result
    ) async throws -> Result {
        try await acquire()
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        release(classify(result))
        return try result.get()
    }

    private func acquire() async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted: Bool? = state.withLock { state in
                    if state.inFlight < state.window.permits && state.waiters.isEmpty {
                        state.inFlight += 1
                        return true
                    }
                    if Task.isCancelled { return false }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                switch granted {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release(_ outcome: Outcome) {
        let granted = state.withLock { state -> [Waiter] in
            state.inFlight -= 1
            switch outcome {
            case .answered: state.window.answered()
            case .timedOut: state.window.timedOut()
            case .other: break
            }
            var granted: [Waiter] = []
            while state.inFlight < state.window.permits, !state.waiters.isEmpty {
                state.inFlight += 1
                granted.append(state.waiters.removeFirst())
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume() }
    }
}
