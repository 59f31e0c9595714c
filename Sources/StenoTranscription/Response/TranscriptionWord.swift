/// A timed word, in seconds from the start of the chunk.
public struct TranscriptionWord: Sendable, Equatable {
    public var word: String
    public var start: Double
    public var end: Double
    public var probability: Double?

    public init(word: String, start: Double, end: Double, probability: Double? = nil) {
        self.word = word
        self.start = start
        self.end = end
        self.probability = probability
    }
}
