import Foundation

/// What a worker does with a job whose attempt failed. The decision is made here, as a pure
/// function with its own tests; the worker's runner only carries it out against the database.
public enum FailureAction: Sendable, Equatable {
    /// The backend is down: back to the queue until the fleet's next probe, the attempt given
    /// back, however long the outage lasts.
    case postponeForOutage
    /// The object store the recording is in does not answer (unreachable, 5xx, 503 SlowDown):
    /// back to the queue after `delay`, the attempt given back, however long it is away: the
    /// media waits for its recording instead of failing with it.
    case waitForStore(after: Duration)
    /// Run again after `delay`; the job store fails the job instead when that was its last
    /// attempt.
    case retry(after: Duration)
    /// The backend refused the configuration (a bad key): stop sending it chunk jobs for
    /// `pause`, and run this one again after it.
    case pauseBackend(for: Duration)
    /// Give the job back untouched: the task was cancelled, which only shutdown does.
    case release
    /// End the job for good.
    case fail

    /// The one rule for a failed attempt.
    /// - Parameters:
    ///   - failureClass: what the error was.
    ///   - attempt: the attempt that failed (from 1), for the backoff.
    ///   - kind: the job's kind; only chunk jobs talk to the backend.
    ///   - backendDown: the backend could not be reached or its connection broke.
    ///   - backendSlow: the backend did not answer in time.
    ///   - requestWindow: the worker's AIMD window towards the backend now; a timeout with the
    ///     window already at one request means the backend is down, not merely slow.
    ///   - outagesPause: whether outages pause chunk jobs (no fallback backend to take them).
    ///   - retryAfter: how long the backend asked to wait, if it did.
    ///   - storeDown: the object store holding the recording did not answer.
    public static func decide(
        _ failureClass: FailureClass, attempt: Int, kind: JobKind, backendDown: Bool, backendSlow: Bool, requestWindow: Double,
        outagesPause: Bool, retryAfter: Duration?, backoff: RetryBackoff, configurationPause: Duration, storeDown: Bool = false
    ) -> FailureAction {
        // Each try is given back (the job never runs out of attempts for it) and the wait grows
        // with each, as a retry's does: the media waits however long the store is away.
        if storeDown && failureClass == .transient { return .waitForStore(after: backoff.delay(afterAttempt: attempt)) }
        let down = backendDown || (backendSlow && requestWindow < 2)
        if down && outagesPause && kind == .chunk { return .postponeForOutage }
        switch failureClass {
        case .transient, .internal, .lostLease:
            return .retry(after: max(backoff.delay(afterAttempt: attempt), retryAfter ?? .zero))
        case .configuration:
            return .pauseBackend(for: configurationPause)
        case .cancelled:
            return .release
        case .permanent, .media, .tooLarge:
            return .fail
        }
    }
}
