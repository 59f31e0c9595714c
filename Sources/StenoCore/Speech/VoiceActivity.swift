import StenoInfrastructure

/// How likely each 32 ms window of a stretch of audio holds speech, as a voice-activity
/// model (Silero VAD) judged it: speech, not just sound. Music, noise, applause and silence
/// score low where loudness alone cannot tell them from a voice.
///
/// Probabilities are kept as bytes (0 is 0, 255 is 1): a 40-hour chapter takes 4.5 MB.
public struct VoiceActivity: Sendable, Hashable {
    /// Media time at which window 0 starts.
    public var start: MediaTime
    public var probabilities: [UInt8]

    /// 512 samples at 16 kHz.
    public static let windowSamples = 512
    public static let sampleRate = 16_000
    public static let windowSeconds = Double(windowSamples) / Double(sampleRate)

    public init(start: MediaTime, probabilities: [UInt8]) {
        self.start = start
        self.probabilities = probabilities
    }

    public static func quantized(_ probability: Float) -> UInt8 {
        UInt8(clamping: Int((min(max(probability, 0), 1) * 255).rounded()))
    }

    public func probability(ofWindow index: Int) -> Float {
        Float(probabilities[index]) / 255
    }

    /// Where window `index` starts, in seconds on the media's clock.
    public func seconds(ofWindow index: Int) -> Double {
        start.seconds + Double(index) * Self.windowSeconds
    }

    public var end: Double { seconds(ofWindow: probabilities.count) }

    /// The stretches of speech, found as Silero's `get_speech_timestamps` finds them: speech
    /// starts at a window at or above `threshold` and ends once windows stay below
    /// `threshold - 0.15` for `shortestPause`; runs shorter than `shortestSpeech` are dropped;
    /// each run is widened by `padding` on both sides (never past its neighbours). A run ends
    /// after its last window at or above `threshold`, not where it fell below the lower line:
    /// the model's probability decays for a few hundred milliseconds into music after a voice
    /// stops (0.33 s into a beat on the bench episodes), and words laid over the run would follow.
    public func speech(_ thresholds: Thresholds = Thresholds()) -> [ClosedRange<Double>] {
        let low = thresholds.threshold - 0.15
        let pauseWindows = max(1, Int((thresholds.shortestPause / Self.windowSeconds).rounded(.up)))
        var runs: [Range<Int>] = []
        var runStart: Int?
        var quietSince: Int?
        var lastHigh = 0
        for index in probabilities.indices {
            let probability = probability(ofWindow: index)
            if probability >= thresholds.threshold { lastHigh = index }
            if let first = runStart {
                if probability >= low {
                    quietSince = nil
                } else {
                    let since = quietSince ?? index
                    quietSince = since
                    if index + 1 - since >= pauseWindows {
                        runs.append(first..<(lastHigh + 1))
                        runStart = nil
                        quietSince = nil
                    }
                }
            } else if probability >= thresholds.threshold {
                runStart = index
            }
        }
        if let first = runStart { runs.append(first..<(lastHigh + 1)) }
        let shortest = thresholds.shortestSpeech / Self.windowSeconds
        let padded = runs.filter { Double($0.count) >= shortest }.map { run in
            max(seconds(ofWindow: run.lowerBound) - thresholds.padding, start.seconds)...min(seconds(ofWindow: run.upperBound) + thresholds.padding, end)
        }
        return SpeechRegions.joined(padded)
    }

    /// Silero's defaults, with the short padding its own tools use: the regions start within
    /// about half a second of the words.
    public struct Thresholds: Sendable, Hashable {
        public var threshold: Float
        public var shortestSpeech: Double
        public var shortestPause: Double
        public var padding: Double

        public init(threshold: Float = 0.5, shortestSpeech: Double = 0.25, shortestPause: Double = 0.1, padding: Double = 0.03) {
            self.threshold = threshold
            self.shortestSpeech = shortestSpeech
            self.shortestPause = shortestPause
            self.padding = padding
        }
    }
}
