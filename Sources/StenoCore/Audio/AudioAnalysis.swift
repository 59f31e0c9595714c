/// Reads a stretch of 16 kHz mono PCM block by block, on the thread that decodes it, and
/// yields what it measured. Made for one decode and used by it alone.
public protocol AudioAnalysis: SendableMetatype {
    associatedtype Output: Sendable
    mutating func append(_ block: UnsafeBufferPointer<Int16>)
    mutating func finish() -> Output
}

extension EnergyProfileBuilder: AudioAnalysis {}

/// Two analyses of the same audio from one decode.
public struct AudioAnalysisPair<First: AudioAnalysis, Second: AudioAnalysis>: AudioAnalysis {
    public var first: First
    public var second: Second

    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    public mutating func append(_ block: UnsafeBufferPointer<Int16>) {
        first.append(block)
        second.append(block)
    }

    public mutating func finish() -> (First.Output, Second.Output) {
        (first.finish(), second.finish())
    }
}

/// The analysis of a decode that needs none.
public struct NoAnalysis: AudioAnalysis {
    public init() {}
    public mutating func append(_ block: UnsafeBufferPointer<Int16>) {}
    public mutating func finish() {}
}
