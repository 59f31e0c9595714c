import StenoInfrastructure

/// What the backend says it billed: seconds of audio (whisper-1, vLLM) or tokens (gpt-4o models).
public struct TranscriptionUsage: Sendable, Equatable {
    public var seconds: Double?
    public var inputTokens: Int?
    public var outputTokens: Int?
    public var totalTokens: Int?

    public init(seconds: Double? = nil, inputTokens: Int? = nil, outputTokens: Int? = nil, totalTokens: Int? = nil) {
        self.seconds = seconds
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.totalTokens = totalTokens
    }
}
