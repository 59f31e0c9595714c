import Foundation

/// One window of a chunk's audio as the speaker pass reads it: who of up to three local speakers
/// talks in each frame (pyannote segmentation-3.0's powerset, overlap included), which of its
/// frames the window speaks for (`owned`: the middle, where it has context on both sides), and
/// the voice of each piece of one local speaker talking alone there. "Local" speakers are the
/// window's own: local speaker 0 of one window and of the next may be different people, and the
/// segmentation can take two alike voices for one; the chapter's merge tells who is who from the
/// pieces' voices (`ChapterSpeakerPlan`). Times are seconds on the media's clock.
public struct SegmentedWindow: Sendable, Equatable {
    /// A stretch of one local speaker talking alone, within the frames the window owns, and its
    /// L2-normalised CAM++ embedding (`VoiceEmbedding.dimensions` values).
    public struct Piece: Sendable, Equatable {
        public var local: Int
        public var frames: Range<Int>
        public var embedding: [Float]

        public init(local: Int, frames: Range<Int>, embedding: [Float]) {
            self.local = local
            self.frames = frames
            self.embedding = embedding
        }

        public var seconds: Double { Double(frames.count) * SegmentedWindow.frameStep }
    }

    /// Where the window's first sample lies.
    public var start: Double
    /// Per frame, the local speakers talking: bit k set for local speaker k.
    public var activity: [UInt8]
    /// The frames this window speaks for; its neighbours speak for the rest.
    public var owned: Range<Int>
    public var pieces: [Piece]

    public init(start: Double, activity: [UInt8], owned: Range<Int>, pieces: [Piece]) {
        self.start = start
        self.activity = activity
        self.owned = owned
        self.pieces = pieces
    }

    /// The segmentation model's frames: 589 to a 10 s window (fewer where the audio is shorter),
    /// one every 16.875 ms (270 samples), each reading 61.9 ms (991 samples).
    public static let frames = 589
    public static let frameStep = 0.016875
    public static let frameDuration = 0.0619375
    public static let duration = 10.0
    public static let localSpeakers = 3

    /// The start of frame `frame`'s step on the media's clock (a frame's step is centred in the
    /// samples it reads).
    public func time(ofFrame frame: Int) -> Double {
        start + Double(frame) * Self.frameStep + (Self.frameDuration - Self.frameStep) / 2
    }
}

extension SegmentedWindow {
    /// The first byte of what `encode` writes. Format 2 was CAM++ pieces without segmentation, and
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
    /// its start (float64), its frame count and owned frames (three uint16), the frames' activity
    /// (a byte each),
    /// its piece count (uint16), and per piece its local speaker (a byte), frames (two uint16),
    /// and embedding as a scale (float32) and its values quantised to a signed byte of that scale
    /// (cosine similarities move by under 1e-3). About 1 KB a window and 0.2 KB a piece: a little
    /// over 1 MB per hour of speech.
    public static func encode(_ windows: [SegmentedWindow]) -> [UInt8] {
        var bytes: [UInt8] = [format]
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for window in windows where window.activity.count <= frames {
            append(window.start.bitPattern)
            append(UInt16(window.activity.count))
            append(UInt16(clamping: window.owned.lowerBound))
            append(UInt16(clamping: window.owned.upperBound))
            bytes.append(contentsOf: window.activity)
            let pieces = window.pieces.filter { $0.embedding.count == VoiceEmbedding.dimensions }
            append(UInt16(clamping: pieces.count))
            for piece in pieces.prefix(Int(UInt16.max)) {
                bytes.append(UInt8(clamping: piece.local))
                append(UInt16(clamping: piece.frames.lowerBound))
                append(UInt16(clamping: piece.frames.upperBound))
                let scale = piece.embedding.map(abs).max() ?? 0
                append(scale.bitPattern)
                for value in piece.embedding {
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
        func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            guard bytes.count - offset >= MemoryLayout<T>.size else { return nil }
            let value = bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
            offset += MemoryLayout<T>.size
            return value
        }
        while offset < bytes.count {
            guard let startBits = integer(UInt64.self), let count = integer(UInt16.self).map(Int.init), count <= frames,
                let lower = integer(UInt16.self), let upper = integer(UInt16.self),
                lower <= upper, Int(upper) <= count, bytes.count - offset >= count
            else { return nil }
            let activity = Array(bytes[offset..<(offset + count)])
            offset += count
            guard let pieceCount = integer(UInt16.self) else { return nil }
            var pieces: [Piece] = []
            for _ in 0..<Int(pieceCount) {
                guard offset < bytes.count else { return nil }
                let local = Int(bytes[offset])
                offset += 1
                guard let first = integer(UInt16.self), let end = integer(UInt16.self), first <= end, Int(end) <= count,
                    let scaleBits = integer(UInt32.self), bytes.count - offset >= VoiceEmbedding.dimensions
                else { return nil }
                let scale = Float(bitPattern: scaleBits)
                let embedding = (0..<VoiceEmbedding.dimensions).map { Float(Int8(bitPattern: bytes[offset + $0])) / 127 * scale }
                offset += VoiceEmbedding.dimensions
                pieces.append(Piece(local: local, frames: Int(first)..<Int(end), embedding: embedding))
            }
            windows.append(SegmentedWindow(
                start: Double(bitPattern: startBits), activity: activity, owned: Int(lower)..<Int(upper), pieces: pieces))
        }
        return .windows(windows)
    }
}
