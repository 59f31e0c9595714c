/// One recognised word with its start and end in seconds.
public struct RecognizedWord: Sendable, Equatable, Codable {
    public var word: String
    public var start: Double
    public var end: Double

    public init(word: String, start: Double, end: Double) {
        self.word = word
        self.start = start
        self.end = end
    }
}
