/// A timed stretch of text, in seconds from the start of the chunk.
public struct TranscriptionSegment: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var text: String
    /// Whisper's quality signals, when the backend reports them: an average log probability
    /// below -1 or a compression ratio above 2.4 suggest a failed decode; a no-speech
    /// probability above 0.6 with a low log probability suggests silence.
    public var averageLogProbability: Double?
    public var compressionRatio: Double?
    public var noSpeechProbability: Double?

    public init(
        start: Double, end: Double, text: String, averageLogProbability: Double? = nil,
        compressionRatio: Double? = nil, noSpeechProbability: Double? = nil
    ) {
        self.start = start
        self.end = end
        self.text = text
        self.averageLogProbability = averageLogProbability
        self.compressionRatio = compressionRatio
        self.noSpeechProbability = noSpeechProbability
    }
}
