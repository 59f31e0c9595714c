/// A word on the media's clock, as stored in `chunks.words` and `segments.words`.
public struct TimedWord: Sendable, Hashable, Codable {
    public var word: String
    /// Seconds on the media's clock.
    public var start: Double
    public var end: Double
    /// Placed by Steno, not heard by the backend (which gave no times): used to place the
    /// sentence, never stored or exported as the word's time.
    public var estimated: Bool
    /// The media's speaker number, on a merged sentence's words once speakers are told apart.
    public var speaker: Int?

    public init(word: String, start: Double, end: Double, estimated: Bool = false, speaker: Int? = nil) {
        self.speaker = speaker
        self.word = word
        self.start = start
        self.end = end
        self.estimated = estimated
    }

    enum CodingKeys: String, CodingKey {
        case word, start, end, speaker
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            word: try container.decode(String.self, forKey: .word), start: try container.decode(Double.self, forKey: .start),
            end: try container.decode(Double.self, forKey: .end), speaker: try container.decodeIfPresent(Int.self, forKey: .speaker))
    }

    /// The middle of the word, which decides the side of an overlap cut it falls on.
    public var middle: Double { (start + end) / 2 }
}
