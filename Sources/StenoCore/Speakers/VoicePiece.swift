import Foundation

/// A stretch of speech short enough to hold one voice, and its voice embedding: what the chunk
/// job measures where it decodes the audio, and what the chapter's merge clusters into speakers.
/// Times are seconds on the media's clock.
public struct VoicePiece: Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// The speaker encoder's L2-normalised embedding (`dimensions` values).
    public var embedding: [Float]

    public init(start: Double, end: Double, embedding: [Float]) {
        self.start = start
        self.end = end
        self.embedding = embedding
    }

    public var duration: Double { end - start }
    public var middle: Double { (start + end) / 2 }

    /// The longest piece: about the 1.6 s windows the encoder was trained on, and short enough
    /// that a turn that starts without a pause moves the boundary at most this much.
    public static let longest = 1.6
    /// Shorter speech says too little about its voice to be measured alone; its words take the
    /// speaker of the nearest piece.
    public static let shortest = 0.3

    /// The pieces of `speech` (seconds on the media's clock) that fall within `range`: a
    /// stretch of speech shorter than `longest` is one piece; a longer one is covered by windows
    /// of exactly `longest` seconds, the first at its start and the last at its end, evenly
    /// spaced (so overlapping a little): the encoder was trained on windows of that length, and
    /// its embeddings of shorter ones are noisier. Stretches shorter than `shortest` are left
    /// out. Without speech regions (detection off), the range itself is the stretch.
    public static func plan(speech: [ClosedRange<Double>]?, within range: Range<Double>) -> [ClosedRange<Double>] {
        let regions = speech ?? [range.lowerBound...range.upperBound]
        var pieces: [ClosedRange<Double>] = []
        for region in regions.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            let start = max(region.lowerBound, range.lowerBound)
            let end = min(region.upperBound, range.upperBound)
            let length = end - start
            guard length >= shortest else { continue }
            guard length > longest else {
                pieces.append(start...end)
                continue
            }
            let count = Int((length / longest).rounded(.up))
            let step = (length - longest) / Double(count - 1)
            for index in 0..<count {
                let first = index == count - 1 ? end - longest : start + Double(index) * step
                pieces.append(first...(index == count - 1 ? end : first + longest))
            }
        }
        return pieces
    }
}

extension VoicePiece {
    /// The pieces of a chapter's chunks (in time order, each with the audio range it decoded),
    /// each kept by the chunk that owns its middle: neighbouring chunks overlap, and the owner
    /// of a moment in the overlap is the chunk on its side of the overlap's middle (the cut).
    public static func owned(byChunks chunks: [(range: Range<Double>, pieces: [VoicePiece])]) -> [VoicePiece] {
        var kept: [VoicePiece] = []
        for (index, chunk) in chunks.enumerated() {
            let lower = index > 0 ? boundary(chunks[index - 1].range.upperBound, chunk.range.lowerBound) : -Double.infinity
            let upper = index + 1 < chunks.count ? boundary(chunk.range.upperBound, chunks[index + 1].range.lowerBound) : Double.infinity
            kept += chunk.pieces.filter { $0.middle >= lower && $0.middle < upper }
        }
        return kept
    }

    /// Where two neighbouring chunks part: the middle of their overlap, or the first's end.
    static func boundary(_ earlierEnd: Double, _ laterStart: Double) -> Double {
        earlierEnd > laterStart ? (earlierEnd + laterStart) / 2 : earlierEnd
    }

    /// The embedding's length: CAM++'s 192 values.
    public static let dimensions = 192

    /// The first byte of what `encode` writes: the format of the pieces after it. Pieces of the
    /// earlier GE2E encoder (256 values, no header) are another model's and are not read.
    static let format: UInt8 = 2

    /// Bytes per stored piece: start and end (float64), the embedding's scale (float32) and
    /// its 192 values quantised to a signed byte each.
    public static let storedSize = 8 + 8 + 4 + dimensions

    /// The pieces as `chunks.voices` stores them: a format byte, then 212 bytes a piece,
    /// little-endian. Embeddings are quantised to 8 bits of their own largest magnitude (cosine
    /// similarities move by under 1e-3).
    public static func encode(_ pieces: [VoicePiece]) -> [UInt8] {
        var bytes: [UInt8] = [format]
        bytes.reserveCapacity(1 + pieces.count * storedSize)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for piece in pieces where piece.embedding.count == dimensions {
            append(piece.start.bitPattern)
            append(piece.end.bitPattern)
            let scale = piece.embedding.map(abs).max() ?? 0
            append(scale.bitPattern)
            for value in piece.embedding {
                let level = scale > 0 ? (min(max(value, -scale), scale) / scale * 127).rounded() : 0
                bytes.append(UInt8(bitPattern: Int8(level)))
            }
        }
        return bytes
    }

    /// What stored bytes hold: this release's pieces, or pieces of another encoder.
    public enum Stored: Sendable, Equatable {
        case pieces([VoicePiece])
        /// Measured by an earlier release's encoder (GE2E): not comparable with this one's.
        case otherEncoder
    }

    /// Reads what `encode` wrote; nil when the bytes are not a whole number of pieces of any
    /// format Steno wrote.
    public static func decode(_ bytes: [UInt8]) -> Stored? {
        if bytes.isEmpty { return .pieces([]) }
        // GE2E's pieces were 276 bytes each with no header; 1 + 212·n is never a multiple of 276.
        if bytes.count.isMultiple(of: 276) { return .otherEncoder }
        guard bytes.first == format, (bytes.count - 1).isMultiple(of: storedSize) else { return nil }
        return .pieces(bytes.withUnsafeBytes { raw in
            stride(from: 1, to: bytes.count, by: storedSize).map { offset in
                let start = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                let end = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
                let scale = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self)))
                let embedding = (0..<dimensions).map { Float(Int8(bitPattern: raw[offset + 20 + $0])) / 127 * scale }
                return VoicePiece(start: start, end: end, embedding: embedding)
            }
        })
    }
}
