/// A successful transcription of one chunk, with where it came from and what it cost.
public struct TranscriptionResult: Sendable {
    public var transcription: Transcription
    /// The name of the backend that answered.
    public var backend: String
    public var model: String
    /// The format the answer came in: the configured one, or `json` chosen for the model or
    /// learned from the backend's refusal of `verbose_json`.
    public var responseFormat: TranscriptionResponseFormat = .verboseJSON
    /// Whether the fallback backend answered because the primary had failed this chunk.
    public var usedFallback: Bool
    /// The primary's failure that sent the chunk to the fallback in this call, if any.
    public var primaryFailure: TranscriptionError?
    /// HTTP requests made for this result, failed retries included.
    public var requests: Int
    /// Of the request that succeeded.
    public var latency: Duration
    /// US dollars, from the backend's price per audio minute; nil when no price is configured.
    public var estimatedCost: Double?

    public init(
        transcription: Transcription, backend: String, model: String, usedFallback: Bool = false,
        primaryFailure: TranscriptionError? = nil, requests: Int, latency: Duration, estimatedCost: Double?
    ) {
        self.transcription = transcription
        self.backend = backend
        self.model = model
        self.usedFallback = usedFallback
        self.primaryFailure = primaryFailure
        self.requests = requests
        self.latency = latency
        self.estimatedCost = estimatedCost
    }
}
