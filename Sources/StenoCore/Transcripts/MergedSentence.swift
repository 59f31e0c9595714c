/// One sentence of a chapter's merged transcript: a row of `segments`.
public struct MergedSentence: Sendable, Hashable {
    public var start: Double
    public var end: Double
    public var text: String
    public var words: [TimedWord]

    public init(start: Double, end: Double, text: String, words: [TimedWord]) {
        self.start = start
        self.end = end
        self.text = text
        self.words = words
    }
}
