/// Loudness of a stretch of audio, one value per short window: the input of chunk planning.
public struct EnergyProfile: Sendable, Hashable {
    /// Media time at which window 0 starts.
    public var start: MediaTime
    /// Length of each window (the last one may cover less audio).
    public var windowDuration: MediaTime
    /// Root mean square of each window's samples, 0 for digital silence, 1 for full scale.
    public var rms: [Float]

    public init(start: MediaTime, windowDuration: MediaTime, rms: [Float]) {
        precondition(windowDuration > .zero, "an energy window has a length")
        self.start = start
        self.windowDuration = windowDuration
        self.rms = rms
    }

    /// Where window `index` starts.
    public func time(ofWindow index: Int) -> MediaTime {
        start + MediaTime(value: Int64(index), timeBase: windowDuration.numerator, windowDuration.denominator)
    }

    /// The window holding `time`, possibly outside `rms.indices`.
    public func window(containing time: MediaTime) -> Int {
        let offset = time - start
        // floor(offset / windowDuration) in exact arithmetic.
        let numerator = Int128(offset.numerator) * Int128(windowDuration.denominator)
        let denominator = Int128(offset.denominator) * Int128(windowDuration.numerator)
        let quotient = numerator / denominator
        return Int(quotient - ((numerator % denominator != 0 && numerator < 0) ? 1 : 0))
    }
}
