/// What the backend returned for one chunk, already on the media's clock: the input of the merge.
public struct ChunkTranscript: Sendable, Hashable {
    /// The audio sent, in seconds on the media's clock (the cut range widened by the overlap).
    public var start: Double
    public var end: Double
    public var text: String
    public var segments: [TimedSegment]
    /// Empty when the backend returned no word timestamps.
    public var words: [TimedWord]
    /// Where the chunk's audio holds speech (seconds on the media's clock), as the planner
    /// measured it; empty when unknown.
    public var speech: [ClosedRange<Double>]
    /// What the gates held back from the chunk's answer.
    public var flagged: [FlaggedText]

    public init(
        start: Double, end: Double, text: String, segments: [TimedSegment], words: [TimedWord], speech: [ClosedRange<Double>] = [],
        flagged: [FlaggedText] = []
    ) {
        self.flagged = flagged
        self.speech = speech
        self.start = start
        self.end = end
        self.text = text
        self.segments = segments
        self.words = words
    }
}
