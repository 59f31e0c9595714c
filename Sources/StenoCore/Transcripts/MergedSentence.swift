/// One sentence of a chapter's merged transcript: a row of `segments`.
public struct MergedSentence: Sendable, Hashable {
    public var start: Double
    public var end: Double
    public var text: String
    public var words: [TimedWord]
    /// Set for text the gates held back: stored as a flagged row, left out of the chapter's
    /// text and of every export but JSON, which shows it with its reason.
    public var flag: FlagReason?
    /// The media's speaker number (`SpeakerLabeling`), nil before speakers are told apart.
    public var speaker: Int?

    public init(start: Double, end: Double, text: String, words: [TimedWord], flag: FlagReason? = nil, speaker: Int? = nil) {
        self.speaker = speaker
        self.flag = flag
        self.start = start
        self.end = end
        self.text = text
        self.words = words
    }
}
