import Logging
import StenoCore
public import StenoInfrastructure

/// A primary backend and an optional second one that takes over a chunk the primary has failed
/// `fallbackAfter` times.
///
/// Workers are stateless, so the caller says how often the primary already failed this chunk
/// (from the job's attempt history). Only failures a different backend may not repeat move a
/// chunk over: transient ones and configuration ones (a revoked key, an exhausted quota). A 400
/// or 413 is about the chunk itself and would fail on any backend.
public final class FallbackTranscriptionClient: Sendable {
    public let primary: TranscriptionClient
    public let fallback: TranscriptionClient?
    /// Failures of the primary on one chunk after which the fallback is used. At least 1.
    public let fallbackAfter: Int

    /// Primary failures on a chunk before the fallback takes it (`STENO_FALLBACK_AFTER`).
    public static let defaultFallbackAfter = 2

    public init(primary: TranscriptionClient, fallback: TranscriptionClient?, fallbackAfter: Int = defaultFallbackAfter) {
        self.primary = primary
        self.fallback = fallback
        self.fallbackAfter = max(1, fallbackAfter)
    }

    /// Transcribes with the primary, or with the fallback once the primary has failed the chunk
    /// `fallbackAfter` times, counting a failure in this call. The result records which answered.
    public func transcribe(
        _ request: TranscriptionRequest, primaryFailures: Int = 0, cancellation: CancellationSignal = CancellationSignal()
    ) async throws(TranscriptionError) -> TranscriptionResult {
        guard let fallback else {
            return try await primary.transcribe(request, cancellation: cancellation)
        }
        if primaryFailures >= fallbackAfter {
            return try await transcribeWithFallback(fallback, request, primaryFailure: nil, cancellation: cancellation)
        }
        do {
            return try await primary.transcribe(request, cancellation: cancellation)
        } catch {
            guard Self.mayMoveToFallback(error), primaryFailures + 1 >= fallbackAfter else { throw error }
            return try await transcribeWithFallback(fallback, request, primaryFailure: error, cancellation: cancellation)
        }
    }

    private func transcribeWithFallback(
        _ fallback: TranscriptionClient, _ request: TranscriptionRequest, primaryFailure: TranscriptionError?,
        cancellation: CancellationSignal
    ) async throws(TranscriptionError) -> TranscriptionResult {
        // A media's own model names a model of the primary backend; the fallback has its own.
        var request = request
        request.model = nil
        var result = try await fallback.transcribe(request, cancellation: cancellation)
        result.usedFallback = true
        result.primaryFailure = primaryFailure
        result.requests += primaryFailure?.requests ?? 0
        return result
    }

    static func mayMoveToFallback(_ error: TranscriptionError) -> Bool {
        error.failureClass == .transient || error.failureClass == .configuration
    }
}
