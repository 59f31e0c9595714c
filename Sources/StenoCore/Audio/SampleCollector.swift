/// Keeps every sample of a decode: the audio an aligner reads whole.
public struct SampleCollector: AudioAnalysis {
    private var samples: [Int16] = []

    public init(expectedSamples: Int64 = 0) {
        samples.reserveCapacity(Int(max(0, min(expectedSamples, Int64(Int32.max)))))
    }

    public mutating func append(_ block: UnsafeBufferPointer<Int16>) {
        samples.append(contentsOf: block)
    }

    public mutating func finish() -> [Int16] { samples }
}
