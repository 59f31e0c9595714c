import StenoInfrastructure

/// Where a stretch of audio holds speech, read from its loudness: the windows louder than a
/// tenth of the stretch's speaking level (-20 dB), joined across short gaps. Under steady noise
/// (a room, a hiss, music under the voice) the pauses between sentences never fall that low, so
/// the line is raised to halfway, in decibels, between the noise floor and the speaking level
/// (at most 6 dB below the speaking level): the pauses then still show where the voice stops.
///
/// Backends that answer text without times (OpenAI's JSON-only models) leave Steno to place
/// the words itself; laying them over the regions that hold speech, instead of evenly over the
/// chunk, keeps sentence times close to the speech. The planner also uses the level to tell a
/// clear pause (no word can span it) from a quiet moment in speech.
public struct SpeechRegions: Sendable, Hashable {
    /// Seconds on the media's clock, in order, not overlapping.
    public var regions: [ClosedRange<Double>]
    /// The loudness below which a window counts as a pause (RMS, 0...1).
    public var pauseLevel: Float

    /// Gaps shorter than this are inside speech (stop consonants, breaths between words).
    public static let shortestGap = 0.2
    /// Voiced runs shorter than this are clicks, not words.
    public static let shortestSpeech = 0.1

    public init(regions: [ClosedRange<Double>], pauseLevel: Float) {
        self.regions = regions
        self.pauseLevel = pauseLevel
    }

    /// The regions of `energy`. The speaking level is the 90th percentile of the windows, so
    /// that long silences do not lower it and a few loud peaks do not raise it; the noise floor
    /// is the 5th (pauses between sentences are a few percent of a reading even at its quickest).
    public init(_ energy: EnergyProfile) {
        let levels = Self.levels(energy.rms)
        let pauseLevel = max(levels.speaking / 10, 1e-4)
        let speechLevel = max(pauseLevel, min(levels.speaking / 2, (levels.floor * levels.speaking).squareRoot()))
        let window = energy.windowDuration.seconds
        let origin = energy.start.seconds
        var regions: [ClosedRange<Double>] = []
        var runStart: Int?
        func close(at end: Int) {
            guard let first = runStart else { return }
            runStart = nil
            let region = (origin + Double(first) * window)...(origin + Double(end) * window)
            if let last = regions.last, region.lowerBound - last.upperBound < Self.shortestGap {
                regions[regions.count - 1] = last.lowerBound...region.upperBound
            } else {
                regions.append(region)
            }
        }
        for (index, value) in energy.rms.enumerated() {
            if value > speechLevel {
                if runStart == nil { runStart = index }
            } else {
                close(at: index)
            }
        }
        close(at: energy.rms.count)
        self.regions = regions.filter { $0.upperBound - $0.lowerBound >= Self.shortestSpeech }
        self.pauseLevel = pauseLevel
    }

    /// The regions inside `range`, cut to it.
    public func within(_ range: ClosedRange<Double>) -> [ClosedRange<Double>] {
        Self.clip(regions, to: range)
    }

    /// `regions` in order, with those less than `gap` apart (or overlapping) joined into one.
    public static func joined(_ regions: [ClosedRange<Double>], acrossGapsUpTo gap: Double = 0) -> [ClosedRange<Double>] {
        var joined: [ClosedRange<Double>] = []
        for region in regions.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = joined.last, region.lowerBound - last.upperBound <= gap {
                joined[joined.count - 1] = last.lowerBound...max(last.upperBound, region.upperBound)
            } else {
                joined.append(region)
            }
        }
        return joined
    }

    /// Seconds of `regions` inside `range` (regions that do not overlap each other).
    public static func seconds(of regions: [ClosedRange<Double>], within range: ClosedRange<Double>) -> Double {
        regions.reduce(0) { $0 + max(0, min(range.upperBound, $1.upperBound) - max(range.lowerBound, $1.lowerBound)) }
    }

    /// The parts of `regions` inside `range`; regions that only touch it are left out.
    public static func clip(_ regions: [ClosedRange<Double>], to range: ClosedRange<Double>) -> [ClosedRange<Double>] {
        regions.compactMap { region in
            let lower = max(region.lowerBound, range.lowerBound)
            let upper = min(region.upperBound, range.upperBound)
            return lower < upper ? lower...upper : nil
        }
    }

    /// The speaking level (90th percentile of the windows) and the noise floor (5th).
    static func levels(_ rms: [Float]) -> (speaking: Float, floor: Float) {
        guard !rms.isEmpty else { return (0, 0) }
        // A sample of at most 4,096 windows keeps this cheap on a chapter of many hours.
        let step = max(1, rms.count / 4096)
        let sample = stride(from: 0, to: rms.count, by: step).map { rms[$0] }.sorted()
        return (sample[min(sample.count - 1, sample.count * 9 / 10)], sample[sample.count / 20])
    }
}
