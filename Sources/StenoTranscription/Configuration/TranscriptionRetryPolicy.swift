public import StenoCore

/// How transient failures are retried inside one attempt, before the job itself is requeued.
public struct TranscriptionRetryPolicy: Sendable, Equatable {
    /// Requests after the first one; 3 gives waits of 1, 2 and 4 s with the default backoff.
    public var maximumRetries: Int
    /// The wait before retry n is `base * 2^(n-1)`, capped, varied by the jitter, unless the
    /// backend said how long to wait.
    public var backoff: RetryBackoff

    public init(maximumRetries: Int = 3, backoff: RetryBackoff = RetryBackoff(base: .seconds(1), cap: .seconds(4), jitter: 0.2)) {
        self.maximumRetries = max(0, maximumRetries)
        self.backoff = backoff
    }
}
