/// Builds an `EnergyProfile` from 16-bit PCM delivered in blocks of any size.
public struct EnergyProfileBuilder: Sendable {
    public let sampleRate: Int
    public let windowSamples: Int
    private let start: MediaTime
    private var values: [Float] = []
    private var sumOfSquares: Double = 0
    private var samplesInWindow = 0

    /// `windowSamples` at `sampleRate` per window (800 at 16 kHz is 50 ms); window 0 starts at `start`.
    /// With `expectedSamples` the profile is allocated once at its size, instead of growing by
    /// doubling (which holds two copies at each step: 17 MB at once for a 40-hour chapter).
    public init(start: MediaTime, sampleRate: Int, windowSamples: Int, expectedSamples: Int64? = nil) {
        precondition(sampleRate > 0 && windowSamples > 0)
        self.start = start
        self.sampleRate = sampleRate
        self.windowSamples = windowSamples
        if let expectedSamples, expectedSamples > 0 {
            values.reserveCapacity(Int(expectedSamples / Int64(windowSamples)) + 1)
        }
    }

    public mutating func append<Samples: Collection>(_ samples: Samples) where Samples.Element == Int16 {
        for sample in samples {
            let value = Double(sample)
            sumOfSquares += value * value
            samplesInWindow += 1
            if samplesInWindow == windowSamples { closeWindow() }
        }
    }

    /// The profile so far, with a final partial window if one is open.
    public mutating func finish() -> EnergyProfile {
        if samplesInWindow > 0 { closeWindow() }
        return EnergyProfile(
            start: start,
            windowDuration: MediaTime(value: Int64(windowSamples), timeBase: 1, Int64(sampleRate)),
            rms: values)
    }

    private mutating func closeWindow() {
        values.append(Float((sumOfSquares / Double(samplesInWindow)).squareRoot() / 32768))
        sumOfSquares = 0
        samplesInWindow = 0
    }
}
