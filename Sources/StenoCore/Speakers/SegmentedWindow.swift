import Foundation

/// One window of a chunk's audio as the speaker pass reads it: who of up to three local speakers
/// talks in each frame (pyannote segmentation-3.0's powerset, overlap included), and the voice of
/// each local speaker who talks enough to be measured. "Local" speakers are the window's own:
/// local speaker 0 of one window and of the next may be different people; the chapter's merge
/// tells which are the same (`ChapterSpeakerPlan`). Times are seconds on the media's clock.
public struct SegmentedWindow: Sendable, Equatable {
    /// Where the window's first sample lies.
    public var start: Double
    /// Per frame, the local speakers talking: bit k set for local speaker k.
    public var activity: [UInt8]
    /// The L2-normalised embedding of each local speaker (CAM++, `VoiceEmbedding.dimensions`
    /// values), nil for one that talks too little in the window to be measured.
    public var voices: [[Float]?]

    public init(start: Double, activity: [UInt8], voices: [[Float]?]) {
        self.start = start
        self.activity = activity
        self.voices = voices
    }

    /// The segmentation model's frames: 589 to a 10 s window, one every 16.875 ms (270 samples),
    /// each reading 61.9 ms (991 samples).
    public static let frames = 589
    public static let frameStep = 0.016875
    public static let frameDuration = 0.0619375
    public static let duration = 10.0
    public static let localSpeakers = 3

    /// The middle of frame `frame` on the media's clock.
    public func time(ofFrame frame: Int) -> Double {
        start + Double(frame) * Self.frameStep + Self.frameDuration / 2
    }

    /// Seconds local speaker `speaker` talks in the window, alone and in all.
    public func seconds(of speaker: Int) -> (alone: Double, all: Double) {
        let bit = UInt8(1) << UInt8(speaker)
        var alone = 0
        var all = 0
        for mask in activity where mask & bit != 0 {
            all += 1
            if mask == bit { alone += 1 }
        }
        return (Double(alone) * Self.frameStep, Double(all) * Self.frameStep)
    }
}

extension SegmentedWindow {
    /// The first byte of what `encode` writes. Format 2 was CAM++ pieces without segmentation and
    /// earlier rows GE2E pieces (no header, 276 bytes each): both are another pass's and read as
    /// `Stored.otherPass`.
    static let format: UInt8 = 3

    /// What stored bytes hold: this release's windows, or another speaker pass's measurements.
    public enum Stored: Sendable, Equatable {
        case windows([SegmentedWindow])
        /// Measured by an earlier release's speaker pass: not comparable with this one's.
        case otherPass
    }

    /// The windows as `chunks.voices` stores them, little-endian: a format byte; then per window
    /// its start (float64), a byte with bit k set where local speaker k has a voice, the frames'
    /// activity (a byte each), and each voice as its scale (float32) and its values quantised to
    /// a signed byte of that scale (cosine similarities move by under 1e-3). About 1.2 KB a
    /// window: under 1 MB per hour of audio at a window every 5 s.
    public static func encode(_ windows: [SegmentedWindow]) -> [UInt8] {
        var bytes: [UInt8] = [format]
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for window in windows where window.activity.count == frames {
            append(window.start.bitPattern)
            var present: UInt8 = 0
            for (index, voice) in window.voices.prefix(localSpeakers).enumerated() where voice?.count == VoiceEmbedding.dimensions {
                present |= 1 << UInt8(index)
            }
            bytes.append(present)
            bytes.append(contentsOf: window.activity)
            for voice in window.voices.prefix(localSpeakers) {
                guard let voice, voice.count == VoiceEmbedding.dimensions else { continue }
                let scale = voice.map(abs).max() ?? 0
                append(scale.bitPattern)
                for value in voice {
                    let level = scale > 0 ? (min(max(value, -scale), scale) / scale * 127).rounded() : 0
                    bytes.append(UInt8(bitPattern: Int8(level)))
                }
            }
        }
        return bytes
    }

    /// Reads what `encode` wrote; nil when the bytes are not whole windows of a format Steno wrote.
    public static func decode(_ bytes: [UInt8]) -> Stored? {
        guard let first = bytes.first else { return .windows([]) }
        // GE2E's pieces were 276 bytes each with no header; format 2 began with 2.
        if first == 2 || (first != format && bytes.count.isMultiple(of: 276)) { return .otherPass }
        guard first == format else { return nil }
        var windows: [SegmentedWindow] = []
        var offset = 1
        let voiceSize = 4 + VoiceEmbedding.dimensions
        while offset < bytes.count {
            guard bytes.count - offset >= 9 + frames else { return nil }
            let start = bytes.withUnsafeBytes { Double(bitPattern: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) }
            let present = bytes[offset + 8]
            let activity = Array(bytes[(offset + 9)..<(offset + 9 + frames)])
            offset += 9 + frames
            var voices: [[Float]?] = []
            for index in 0..<localSpeakers {
                guard present & (1 << UInt8(index)) != 0 else {
                    voices.append(nil)
                    continue
                }
                guard bytes.count - offset >= voiceSize else { return nil }
                let scale = bytes.withUnsafeBytes { Float(bitPattern: UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
                voices.append((0..<VoiceEmbedding.dimensions).map { Float(Int8(bitPattern: bytes[offset + 4 + $0])) / 127 * scale })
                offset += voiceSize
            }
            windows.append(SegmentedWindow(start: start, activity: activity, voices: voices))
        }
        return .windows(windows)
    }
}
