import StenoInfrastructure

/// Chooses where to cut a chapter into chunks: near a target length, in the quietest stretch of a
/// search window around each target boundary, always within the backend's limits.
///
/// Cuts go where the speaker pauses, so that no word is split when a pause exists nearby; when
/// the search window holds no audio data, the cut falls on the target boundary. A cut in a clear
/// pause (quieter than the chapter's pause level for the whole quiet stretch) needs no overlap:
/// no word spans it, so neither side hears a word twice or half. Only the other cuts widen
/// their chunks by the overlap, which the merge then resolves by aligning the two sides.
public struct ChunkPlanner: Sendable {
    public let configuration: Configuration
    /// The longest cut range allowed: the backend's duration limit and the upload size limit
    /// (at the estimated bitrate), less the overlap that widens every chunk.
    public let longestCutRange: MediaTime

    public init(configuration: Configuration = Configuration()) throws(ChunkPlannerError) {
        self.configuration = configuration
        guard configuration.targetDuration > .zero else { throw ChunkPlannerError("the target length must be positive") }
        guard configuration.searchWindow >= .zero, configuration.overlap >= .zero else {
            throw ChunkPlannerError("the search window and the overlap cannot be negative")
        }
        guard configuration.estimatedBytesPerSecond > 0, configuration.maxUploadBytes > 0 else {
            throw ChunkPlannerError("the upload size limit and the estimated bytes per second must be positive")
        }
        let bySize = MediaTime(value: Int64(configuration.maxUploadBytes), timeBase: 1, Int64(configuration.estimatedBytesPerSecond))
        let longest = MediaTime.min(configuration.maxDuration, bySize) - configuration.overlap
        guard longest >= MediaTime(seconds: 1) else {
            throw ChunkPlannerError(
                "the limits (\(configuration.maxDuration) s, \(configuration.maxUploadBytes) bytes at \(configuration.estimatedBytesPerSecond) bytes/s) leave no room for a chunk with \(configuration.overlap) s of overlap")
        }
        self.longestCutRange = longest
    }

    /// Plans the chunks of `range` (a chapter), reading pauses from `energy` and, when given,
    /// speech from `voice`.
    ///
    /// With `voice`, only speech is uploaded: each stretch of detected speech, widened by
    /// `uploadLead` and `uploadTail` and joined to the next across pauses up to `longestUploadedPause`, is
    /// tiled with chunks cut in the pauses the detector found; the non-speech between those
    /// stretches becomes chunks that are never sent (`uploaded == false`). Each chunk's
    /// `speech` is the detected speech, so words placed without times land on the voice and
    /// not on music or noise. Without `voice`, the whole range is tiled and speech is read
    /// from loudness.
    public func plan(_ range: Range<MediaTime>, energy: EnergyProfile, voice: VoiceActivity? = nil) -> [PlannedChunk] {
        let loudness = SpeechRegions(energy)
        guard let voice else {
            return tile(range, energy: energy, pauseLevel: loudness.pauseLevel, speech: loudness.regions, pauses: nil)
        }
        let speech = SpeechRegions.clip(voice.speech(configuration.voiceThresholds), to: range.lowerBound.seconds...range.upperBound.seconds)
        var pieces: [PlannedChunk] = []
        var position = range.lowerBound
        func skip(to end: MediaTime) {
            guard end > position else { return }
            pieces.append(PlannedChunk(index: 0, cutStart: position, cutEnd: end, start: position, end: end, uploaded: false))
            position = end
        }
        for span in uploadSpans(speech, within: range) {
            skip(to: span.lowerBound)
            let inside = SpeechRegions.clip(speech, to: span.lowerBound.seconds...span.upperBound.seconds)
            let pauses = zip(inside, inside.dropFirst()).map { $0.upperBound...$1.lowerBound }
            pieces += tile(span, energy: energy, pauseLevel: loudness.pauseLevel, speech: speech, pauses: pauses)
            position = span.upperBound
        }
        skip(to: range.upperBound)
        return pieces.enumerated().map { index, piece in
            var piece = piece
            piece.index = index
            return piece
        }
    }

    /// The stretches to upload: speech padded, joined across short pauses, and reaching the
    /// chapter's edge when the non-speech before or after it is short too. On 16 kHz samples.
    func uploadSpans(_ speech: [ClosedRange<Double>], within range: Range<MediaTime>) -> [Range<MediaTime>] {
        let lowest = range.lowerBound.seconds
        let highest = range.upperBound.seconds
        let widened = speech.map { max($0.lowerBound - configuration.uploadLead, lowest)...min($0.upperBound + configuration.uploadTail, highest) }
        let spans = SpeechRegions.joined(widened, acrossGapsUpTo: configuration.longestUploadedPause)
        func time(_ seconds: Double) -> MediaTime {
            MediaTime.min(MediaTime.max(MediaTime(samples: Int64((seconds * 16_000).rounded()), rate: 16_000), range.lowerBound), range.upperBound)
        }
        return spans.enumerated().compactMap { index, span in
            let lower = index == 0 && span.lowerBound - lowest <= configuration.longestUploadedPause ? range.lowerBound : time(span.lowerBound)
            let upper = index == spans.count - 1 && highest - span.upperBound <= configuration.longestUploadedPause ? range.upperBound : time(span.upperBound)
            return lower < upper ? lower..<upper : nil
        }
    }

    /// Chunks tiling `range`, cut near every target length: in the longest of `pauses` (the
    /// speech detector's) within the search window, else in the quietest stretch by loudness.
    private func tile(
        _ range: Range<MediaTime>, energy: EnergyProfile, pauseLevel: Float, speech: [ClosedRange<Double>], pauses: [ClosedRange<Double>]?
    ) -> [PlannedChunk] {
        let target = MediaTime.min(configuration.targetDuration, longestCutRange)
        let search = MediaTime.min(configuration.searchWindow, target * (1, 2))
        let loudness = Loudness(energy, quietStretch: configuration.quietStretch)
        var cuts = [range.lowerBound]
        var clear = [true]
        var position = range.lowerBound
        while range.upperBound - position > longestCutRange || range.upperBound - position > target + search {
            let ideal = position + target
            let earliest = MediaTime.max(ideal - search, position + MediaTime.min(target * (1, 2), MediaTime(seconds: 1)))
            // Leave the last chunk at least the search window, so that no sliver of audio is sent alone.
            let latest = MediaTime.min(MediaTime.min(ideal + search, position + longestCutRange), range.upperBound - search)
            let window = earliest..<MediaTime.max(earliest, latest)
            let pause = pauses.flatMap { longestPause(in: window, near: ideal, pauses: $0) }
                ?? quietestPoint(in: window, near: ideal, loudness: loudness, pauseLevel: pauseLevel)
            let cut = pause?.time ?? MediaTime.min(ideal, position + longestCutRange)
            cuts.append(cut)
            clear.append(pause?.clear ?? false)
            position = cut
        }
        cuts.append(range.upperBound)
        clear.append(true)
        return chunks(between: cuts, clear: clear, within: range, speech: speech)
    }

    /// The middle of the longest detected pause whose middle lies in `bounds` (ties to the one
    /// nearest `ideal`); `clear`, needing no overlap, when it lasts at least `quietStretch`.
    private func longestPause(in bounds: Range<MediaTime>, near ideal: MediaTime, pauses: [ClosedRange<Double>]) -> (time: MediaTime, clear: Bool)? {
        let candidates = pauses.compactMap { pause -> (time: MediaTime, length: Double)? in
            let middle = MediaTime(samples: Int64(((pause.lowerBound + pause.upperBound) * 8_000).rounded()), rate: 16_000)
            return bounds.contains(middle) ? (middle, pause.upperBound - pause.lowerBound) : nil
        }
        let best = candidates.min { left, right in
            left.length != right.length ? left.length > right.length
                : abs((left.time - ideal).seconds) < abs((right.time - ideal).seconds)
        }
        return best.map { ($0.time, $0.length >= configuration.quietStretch.seconds) }
    }

    /// Splits a chunk whose encoding came out over the upload limit into `parts` chunks, cut at
    /// pauses near equal shares, keeping its outer edges.
    /// With `voice`, each piece's speech is the detected speech.
    public func split(_ chunk: PlannedChunk, into parts: Int = 2, energy: EnergyProfile, voice: VoiceActivity? = nil) -> [PlannedChunk] {
        precondition(parts >= 2, "a split makes at least two chunks")
        let share = (chunk.cutEnd - chunk.cutStart) * (1, Int64(parts))
        let search = MediaTime.min(configuration.searchWindow, share * (1, 4))
        let speech = SpeechRegions(energy)
        let loudness = Loudness(energy, quietStretch: configuration.quietStretch)
        var cuts = [chunk.cutStart]
        var clear = [true]
        for part in 1..<parts {
            let ideal = chunk.cutStart + share * (Int64(part), 1)
            let pause = quietestPoint(in: (ideal - search)..<(ideal + search), near: ideal, loudness: loudness, pauseLevel: speech.pauseLevel)
            cuts.append(MediaTime.max(pause?.time ?? ideal, cuts[cuts.count - 1]))
            clear.append(pause?.clear ?? false)
        }
        cuts.append(chunk.cutEnd)
        clear.append(true)
        let outer = chunk.start..<chunk.end
        let regions = voice.map { $0.speech(configuration.voiceThresholds) } ?? speech.regions
        return chunks(between: cuts, clear: clear, within: outer, speech: regions).enumerated().map { offset, piece in
            var piece = piece
            piece.index = chunk.index + offset
            return piece
        }
    }

    /// The chunks between `cuts`; `clear[i]` tells whether cut `i` lies in a clear pause and so
    /// needs no overlap. The outer edges of `range` are never widened.
    private func chunks(between cuts: [MediaTime], clear: [Bool], within range: Range<MediaTime>, speech: [ClosedRange<Double>]) -> [PlannedChunk] {
        let halfOverlap = configuration.overlap * (1, 2)
        return zip(cuts, cuts.dropFirst()).enumerated().map { index, bounds in
            let start = index == 0 ? range.lowerBound : clear[index] ? bounds.0 : MediaTime.max(range.lowerBound, bounds.0 - halfOverlap)
            let end = index == cuts.count - 2 ? range.upperBound : clear[index + 1] ? bounds.1 : MediaTime.min(range.upperBound, bounds.1 + halfOverlap)
            return PlannedChunk(
                index: index, cutStart: bounds.0, cutEnd: bounds.1, start: start, end: end,
                speech: SpeechRegions.clip(speech, to: start.seconds...end.seconds))
        }
    }

    /// The middle of the quietest pause among windows in `bounds`: the window whose surrounding
    /// stretch (`quietStretch` long) has the least mean energy, widened to the run of
    /// neighbouring windows about as quiet, so the cut lands mid-pause rather than at its edge.
    /// Ties between separate pauses go to the one nearest `ideal`. The point is `clear` when the
    /// whole stretch around it is below `pauseLevel`.
    private func quietestPoint(
        in bounds: Range<MediaTime>, near ideal: MediaTime, loudness: Loudness, pauseLevel: Float
    ) -> (time: MediaTime, clear: Bool)? {
        let energy = loudness.energy
        guard !energy.rms.isEmpty else { return nil }
        let first = max(energy.window(containing: bounds.lowerBound) + 1, 0)
        let last = min(energy.window(containing: bounds.upperBound) - 1, energy.rms.count - 1)
        guard first <= last else { return nil }

        let score = loudness.meanAround
        let idealWindow = energy.window(containing: ideal)
        var best: (window: Int, score: Double, distance: Int)?
        for window in first...last {
            let candidate = score(window)
            let distance = abs(window - idealWindow)
            if let current = best, candidate > current.score || (candidate == current.score && distance >= current.distance) {
                continue
            }
            best = (window, candidate, distance)
        }
        guard let best else { return nil }
        let quietEnough = best.score * 1.25 + 1e-5
        var runStart = best.window
        var runEnd = best.window
        while runStart > first, score(runStart - 1) <= quietEnough { runStart -= 1 }
        while runEnd < last, score(runEnd + 1) <= quietEnough { runEnd += 1 }
        let middle = (runStart + runEnd) / 2
        let halfWindow = (runStart + runEnd) % 2 == 0 ? energy.windowDuration * (1, 2) : energy.windowDuration
        let clear = energy.rms[loudness.stretch(around: middle)].allSatisfy { $0 <= pauseLevel }
        return (energy.time(ofWindow: middle) + halfWindow, clear)
    }

    /// A chapter's loudness read as the mean over the `quietStretch` around a window: a few
    /// windows summed per candidate, and no copy of the profile (a running-sum table took twice
    /// the profile's memory: 23 MB for a 40-hour chapter).
    private struct Loudness {
        let energy: EnergyProfile
        let stretchWindows: Int

        init(_ energy: EnergyProfile, quietStretch: MediaTime) {
            self.energy = energy
            stretchWindows = max(1, energy.window(containing: energy.start + quietStretch))
        }

        /// The windows of the stretch centred on `window`, cut to the profile.
        func stretch(around window: Int) -> Range<Int> {
            let low = max(0, window - stretchWindows / 2)
            return low..<max(low, min(energy.rms.count, window - stretchWindows / 2 + stretchWindows))
        }

        func meanAround(_ window: Int) -> Double {
            let stretch = stretch(around: window)
            guard !stretch.isEmpty else { return 0 }
            var sum = 0.0
            for index in stretch {
                sum += Double(energy.rms[index])
            }
            return sum / Double(stretch.count)
        }
    }
}

extension MediaTime {
    /// This time scaled by the fraction `factor.0 / factor.1`.
    static func * (time: MediaTime, factor: (Int64, Int64)) -> MediaTime {
        MediaTime(value: time.numerator, timeBase: factor.0, time.denominator * factor.1)
    }
}
