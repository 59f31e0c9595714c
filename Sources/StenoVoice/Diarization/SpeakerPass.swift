public import StenoCore

/// The speaker pass of a chunk: pyannote segmentation-3.0 over 10 s windows of the chunk's audio
/// (who of up to three local speakers talks in each frame, overlap included), then the CAM++
/// voice of each local speaker who talks enough, measured from the frames where they talk alone
/// when there are enough of those. What it returns is what the chunk keeps (`chunks.voices`)
/// and what the chapter's merge clusters (`ChapterSpeakerPlan`).
///
/// Synchronous and CPU-bound: call it from a thread of the media queue or another thread of
/// one's own, never from the cooperative pool.
public struct SpeakerPass: Sendable {
    public let segmenter: SpeakerSegmenter
    public let encoder: SpeakerEncoder
    public let settings: SpeakerSettings

    public init(segmentation: SegmentationModel, encoder: SpeakerEncoderModel, settings: SpeakerSettings = .calibrated) {
        segmenter = SpeakerSegmenter(model: segmentation)
        self.encoder = SpeakerEncoder(model: encoder)
        self.settings = settings
    }

    static let sampleRate = 16_000
    static let frameStepSamples = 270
    static let frameSamples = 991

    /// Where the windows of `length` samples of audio start, in samples: every `windowStep`
    /// seconds from the first sample, and one more ending at the last sample where the steps
    /// leave a remainder; a single window for audio shorter than one.
    func windowStarts(length: Int) -> [Int] {
        let window = SegmentationModel.windowSamples
        guard length > window else { return [0] }
        let step = max(1, Int(settings.windowStep * Double(Self.sampleRate)))
        var starts = Array(stride(from: 0, through: length - window, by: step))
        if let last = starts.last, last + window < length { starts.append(length - window) }
        return starts
    }

    /// The segmented windows of `samples` (16 kHz mono, -1...1) whose first sample lies at
    /// `start` seconds on the media's clock. Windows that hold none of `speech` (the speech
    /// detector's regions on the same clock; nil with detection off) are not read.
    public func windows(of samples: [Float], start: Double, speech: [ClosedRange<Double>]?) -> [SegmentedWindow] {
        guard !samples.isEmpty else { return [] }
        let window = SegmentationModel.windowSamples
        let rate = Double(Self.sampleRate)
        let all = windowStarts(length: samples.count)
        // Each window speaks for the moments nearer its middle than its neighbours': the middle
        // of each overlap is where one hands over to the next.
        let owned = all.indices.map { index -> Range<Int> in
            let lower = index == 0 ? 0 : (all[index - 1] + window - all[index]) / 2
            let upper = index == all.count - 1 ? window : (all[index] + window + all[index + 1]) / 2 - all[index]
            return Self.frames(from: lower, to: upper)
        }
        let chosen = all.indices.filter { index in
            guard let speech else { return true }
            let lower = start + Double(all[index]) / rate
            let upper = lower + Double(min(window, samples.count - all[index])) / rate
            return speech.contains { $0.lowerBound < upper && $0.upperBound > lower }
        }
        guard !chosen.isEmpty else { return [] }
        // Audio shorter than a window is read as it is (its frames only): zeros to make up 10 s
        // would cost a whole window's reading for a short chunk. Shorter than the segmenter can
        // read, it is padded to that.
        let audio = chosen.map { index -> [Float] in
            let first = all[index]
            var piece = Array(samples[first..<min(samples.count, first + window)])
            if piece.count < SpeakerSegmenter.shortestWindow {
                piece += [Float](repeating: 0, count: SpeakerSegmenter.shortestWindow - piece.count)
            }
            return piece
        }
        let probabilities = Dictionary(grouping: audio.indices) { audio[$0].count }.values.reduce(into: [[Float]](repeating: [], count: audio.count)) {
            result, group in
            for (position, output) in zip(group, segmenter.logProbabilities(of: group.map { audio[$0] })) { result[position] = output }
        }
        return chosen.indices.map { position in
            let index = chosen[position]
            let real = min(window, samples.count - all[index])
            let activity = Self.activity(probabilities[position], realSamples: real)
            let mine = owned[index].clamped(to: 0..<activity.count)
            let pieces = self.pieces(activity: activity, owned: mine, audio: audio[position], realSamples: real)
            return SegmentedWindow(start: start + Double(all[index]) / rate, activity: activity, owned: mine, pieces: pieces)
        }
    }

    /// The frames whose steps' middles lie in samples `lower..<upper` of their window.
    static func frames(from lower: Int, to upper: Int) -> Range<Int> {
        let middle = (frameSamples - frameStepSamples) / 2 + frameStepSamples / 2
        let first = max(0, Int((Double(lower - middle) / Double(frameStepSamples)).rounded(.up)))
        let end = min(SegmentedWindow.frames, Int((Double(upper - middle) / Double(frameStepSamples)).rounded(.up)))
        return first..<max(first, end)
    }

    /// The local speakers of each frame, as bits, from the most likely powerset class; frames
    /// that read past the audio (a short window's zero padding) hear no one.
    static func activity(_ logProbabilities: [Float], realSamples: Int) -> [UInt8] {
        let classes = SegmentationModel.classes
        return (0..<(logProbabilities.count / classes)).map { frame in
            guard frame * frameStepSamples + frameSamples / 2 < realSamples else { return 0 }
            let row = frame * classes
            let best = (0..<classes).max { logProbabilities[row + $0] < logProbabilities[row + $1] }!
            return SegmentationModel.powerset[best].reduce(0) { $0 | UInt8(1) << UInt8($1) }
        }
    }

    /// The pieces of the window: each run of one local speaker talking alone within the owned
    /// frames, cut into even pieces of at most `longestPiece`, each measured by CAM++ over the
    /// samples of its frames' steps; runs shorter than `shortestPiece` are not measured.
    func pieces(activity: [UInt8], owned: Range<Int>, audio: [Float], realSamples: Int) -> [SegmentedWindow.Piece] {
        let step = SegmentedWindow.frameStep
        let shortest = max(1, Int((settings.shortestPiece / step).rounded(.up)))
        let longest = max(shortest, Int(settings.longestPiece / step))
        var spans: [(local: Int, frames: Range<Int>)] = []
        for local in 0..<SegmentedWindow.localSpeakers {
            let bit = UInt8(1) << UInt8(local)
            var frame = owned.lowerBound
            while frame < owned.upperBound {
                guard activity[frame] == bit else {
                    frame += 1
                    continue
                }
                var end = frame
                while end < owned.upperBound && activity[end] == bit { end += 1 }
                let length = end - frame
                if length >= shortest {
                    let count = (length + longest - 1) / longest
                    for part in 0..<count {
                        spans.append((local, (frame + length * part / count)..<(frame + length * (part + 1) / count)))
                    }
                }
                frame = end
            }
        }
        let offset = (Self.frameSamples - Self.frameStepSamples) / 2
        let samples = spans.map { span -> [Float] in
            let lower = min(realSamples, span.frames.lowerBound * Self.frameStepSamples + offset)
            let upper = min(realSamples, span.frames.upperBound * Self.frameStepSamples + offset)
            return Array(audio[lower..<upper])
        }
        let embeddings = encoder.embeddings(of: samples)
        return zip(spans, embeddings).compactMap { span, embedding in
            embedding.isEmpty ? nil : SegmentedWindow.Piece(local: span.local, frames: span.frames, embedding: embedding)
        }
    }
}
