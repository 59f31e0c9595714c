/// Time limits of one attempt at a chunk (docs/architecture.md, "Failures").
public struct TranscriptionLimits: Sendable, Equatable {
    /// To open a TCP (and TLS) connection.
    public var connect: Duration
    /// One HTTP request, upload and answer together.
    public var request: Duration
    /// Every request and wait of one attempt together.
    public var attempt: Duration
    /// An upload that sends no byte for this long is aborted.
    public var stall: Duration
    /// The longest `Retry-After` the client sleeps through inside an attempt; a longer one is
    /// returned to the caller as "retry the job at T" (openai-python also stops at 120 s).
    public var longestRetryAfter: Duration

    public init(
        connect: Duration = .seconds(10), request: Duration = .seconds(120), attempt: Duration = .seconds(600),
        stall: Duration = .seconds(30), longestRetryAfter: Duration = .seconds(120)
    ) {
        self.connect = connect
        self.request = request
        self.attempt = attempt
        self.stall = stall
        self.longestRetryAfter = longestRetryAfter
    }
}
