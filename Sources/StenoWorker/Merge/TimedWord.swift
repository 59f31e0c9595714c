/// A word on the media's clock, as stored in `chunks.words` and `segments.words`.
public struct TimedWord: Sendable, Hashable, Codable {
    public var word: String
    /// Seconds on the media's clock.
    public var start: Double
    public var end: Double

    public init(word: String, start: Double, end: Double) {
        self.word = word
        self.start = start
        self.end = end
    }

    /// The middle of the word, which decides the side of an overlap cut it falls on.
    var middle: Double { (start + end) / 2 }
}
