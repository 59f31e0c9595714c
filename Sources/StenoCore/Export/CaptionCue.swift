/// One subtitle shown on screen from `start` to `end` (seconds on the media's clock).
public struct CaptionCue: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var lines: [String]

    public init(start: Double, end: Double, lines: [String]) {
        self.start = start
        self.end = end
        self.lines = lines
    }
}
