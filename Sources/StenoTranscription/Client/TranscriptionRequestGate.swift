public import StenoCore
public import StenoInfrastructure

/// Admits each HTTP request to a backend that has a fleet-wide rate limit. The worker's gate
/// shares the budget through PostgreSQL; a client without a gate sends at once.
public protocol TranscriptionRequestGate: Sendable {
    /// Returns once a request of `audioSeconds` may go to `backend`; throws a `cancelled`
    /// error when `cancellation` fires first. The time waited does not count against the
    /// attempt's time limit.
    func admit(backend: String, limit: RateLimit, audioSeconds: Double, cancellation: CancellationSignal) async throws(TranscriptionError)
}
