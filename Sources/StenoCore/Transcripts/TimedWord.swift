/// A word on the media's clock, as stored in `chunks.words` and `segments.words`.
public struct TimedWord: Sendable, Hashable, Codable {
    public var word: String
    /// Seconds on the media's clock.
    public var start: Double
    public var end: Double
    /// Placed by Steno, not heard by the backend (which gave no times): used to place the
    /// sentence, never stored or exported as the word's time.
    public var estimated: Bool

    public init(word: String, start: Double, end: Double, estimated: Bool = false) {
        self.word = word
        self.start = start
        self.end = end
        self.estimated = estimated
    }

    enum CodingKeys: String, CodingKey {
        case word, start, end
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            word: try container.decode(String.self, forKey: .word), start: try container.decode(Double.self, forKey: .start),
            end: try container.decode(Double.self, forKey: .end))
    }

    /// The middle of the word, which decides the side of an overlap cut it falls on.
    public var middle: Double { (start + end) / 2 }
}
