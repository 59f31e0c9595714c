/// One subtitle shown on screen from `start` to `end` (seconds on the media's clock).
public struct CaptionCue: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var lines: [String]
    /// Who says it, when the media has two or more speakers.
    public var speaker: String?

    public init(start: Double, end: Double, lines: [String], speaker: String? = nil) {
        self.speaker = speaker
        self.start = start
        self.end = end
        self.lines = lines
    }
}
