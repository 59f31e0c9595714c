/// A word on the media's clock, as stored in `chunks.words` and `segments.words`.
public struct TimedWord: Sendable, Hashable, Codable {
    public var word: String
    /// Seconds on the media's clock.
    public var start: Double
    public var end: Double
    /// Placed by Steno, not heard (the backend gave no times, or the aligner skipped the word):
    /// used to place the sentence, never exported as the word's time.
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
        case word, start, end, speaker, estimated
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            word: try container.decode(String.self, forKey: .word), start: try container.decode(Double.self, forKey: .start),
            end: try container.decode(Double.self, forKey: .end),
            estimated: try container.decodeIfPresent(Bool.self, forKey: .estimated) ?? false,
            speaker: try container.decodeIfPresent(Int.self, forKey: .speaker))
    }

    /// `estimated` is written only when true: a chunk's stored words keep which of them Steno
    /// placed (an aligner skipped them), and every other word reads as it always did.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(word, forKey: .word)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encodeIfPresent(speaker, forKey: .speaker)
        if estimated { try container.encode(true, forKey: .estimated) }
    }

    /// The middle of the word, which decides the side of an overlap cut it falls on.
    public var middle: Double { (start + end) / 2 }
}
