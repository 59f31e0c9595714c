/// A stretch of text with its times on the media's clock, as stored in `chunks.segments`.
public struct TimedSegment: Sendable, Hashable, Codable {
    public var start: Double
    public var end: Double
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}
