import StenoInfrastructure
import Synchronization

/// One call handed to a connection's thread, and the task that waits for its outcome.
///
/// The task may leave while the call is still queued or the connection is still being opened:
/// opening one can block for as long as a server or a name lookup is away (a database restart,
/// a DNS server that answers late), and a task told to stop (a worker's shutdown) must not wait
/// for that. Once the statement is being sent the task waits for its outcome, as cancelling it
/// on the server is then the way to stop it.
final class ConnectionCall<Success: Sendable>: Sendable {
    typealias Outcome = Result<Success, PostgresError>

    private enum State {
        /// Queued or connecting; the continuation is nil until the task has handed it over.
        case waiting(CheckedContinuation<Outcome, Never>?)
        /// The statement is on its way to the server.
        case sending(CheckedContinuation<Outcome, Never>?)
        /// The task left before the statement was sent; it is never sent.
        case left
        case finished
    }

    private let state = Mutex(State.waiting(nil))

    /// Hands the call to `start` and waits for its outcome, or for `cancelled` while the call
    /// has not reached the sending of its statement.
    func outcome(leavingOn cancelled: CancellationSignal, _ start: (ConnectionCall) -> Void) async -> Outcome {
        let registration = cancelled.onCancel { [self] in leave() }
        defer { cancelled.removeHandler(registration) }
        return await withCheckedContinuation { continuation in
            let leftAlready = state.withLock { state -> Bool in
                switch state {
                case .waiting: state = .waiting(continuation)
                case .sending: state = .sending(continuation)
                case .left: return true
                case .finished: preconditionFailure("a connection call finished before it was started")
                }
                return false
            }
            if leftAlready {
                continuation.resume(returning: .failure(Self.leftError))
            } else {
                start(self)
            }
        }
    }

    /// Whether the task still waits; false once it left, and the call should not even connect.
    var isWaiting: Bool {
        state.withLock { if case .waiting = $0 { true } else { false } }
    }

    /// Called on the connection's thread with a live session, just before the statement is sent:
    /// false when the task left, and then nothing is sent.
    func willSend() -> Bool {
        state.withLock { state in
            switch state {
            case .waiting(let continuation):
                state = .sending(continuation)
                return true
            case .sending: return true
            case .left, .finished: return false
            }
        }
    }

    /// The call's outcome, from the connection's thread; dropped when the task left.
    func finish(_ outcome: Outcome) {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            switch state {
            case .waiting(let continuation), .sending(let continuation):
                state = .finished
                return continuation
            case .left, .finished:
                return nil
            }
        }
        continuation?.resume(returning: outcome)
    }

    /// The task was cancelled: it leaves unless the statement is already on its way.
    private func leave() {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .left
            return continuation
        }
        continuation?.resume(returning: .failure(Self.leftError))
    }

    static var leftError: PostgresError {
        PostgresError(
            .cancelled, "the calling task was cancelled before the statement was sent (it was waiting for its turn or for the database connection)")
    }
}
