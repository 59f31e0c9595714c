public import StenoCore

/// Keeps the samples of a chunk's audio as it is decoded for upload, and runs the speaker pass
/// over them when the decode ends, on the decoder's thread: the speaker pass reads the audio the
/// chunk job decodes anyway, and never a second decode of it. A 60 s chunk holds 3.8 MB of
/// samples for the length of its decode.
///
/// A value made and used on one thread (the decoder's); the pass it runs is shared.
public struct SpeakerSampler: AudioAnalysis {
    private let pass: SpeakerPass
    private let start: Double
    private let speech: [ClosedRange<Double>]?
    private var samples: [Float] = []

    /// Samples audio whose first sample is at `start`; `speech` is the speech detector's regions
    /// on the media's clock (nil with detection off).
    public init(pass: SpeakerPass, start: MediaTime, expectedSamples: Int = 0, speech: [ClosedRange<Double>]?) {
        self.pass = pass
        self.start = start.seconds
        self.speech = speech
        samples.reserveCapacity(expectedSamples)
    }

    public mutating func append(_ block: UnsafeBufferPointer<Int16>) {
        for sample in block { samples.append(Float(sample) / 32768) }
    }

    public mutating func finish() -> [SegmentedWindow] {
        pass.windows(of: samples, start: start, speech: speech)
    }
}
