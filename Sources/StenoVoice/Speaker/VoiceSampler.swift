public import StenoCore
import StenoInfrastructure

/// Keeps the samples of the planned voice pieces as a chunk's audio is decoded, and embeds them
/// all at once when the decode ends, on the decoder's thread: the speaker encoder reads the
/// audio the chunk job decodes anyway, and never a second copy of it.
///
/// A value made and used on one thread (the decoder's); the encoder it runs is shared.
public struct VoiceSampler: AudioAnalysis {
    private let encoder: SpeakerEncoder
    private let pieces: [ClosedRange<Double>]
    /// Each piece's first and end sample, counted from the decode's first sample.
    private let bounds: [Range<Int>]
    private var samples: [[Float]]
    private var position = 0

    /// Samples `pieces` (seconds on the media's clock) of audio whose first sample is at `start`.
    public init(encoder: SpeakerEncoder, start: MediaTime, pieces: [ClosedRange<Double>]) {
        self.encoder = encoder
        self.pieces = pieces
        let origin = start.seconds
        let rate = Double(VoiceActivity.sampleRate)
        bounds = pieces.map { piece in
            let first = max(0, Int(((piece.lowerBound - origin) * rate).rounded()))
            return first..<max(first, Int(((piece.upperBound - origin) * rate).rounded()))
        }
        samples = bounds.map { bound in
            var buffer: [Float] = []
            buffer.reserveCapacity(bound.count)
            return buffer
        }
    }

    public mutating func append(_ block: UnsafeBufferPointer<Int16>) {
        let blockRange = position..<(position + block.count)
        for (index, bound) in bounds.enumerated() where bound.overlaps(blockRange) {
            let lower = max(bound.lowerBound, blockRange.lowerBound)
            let upper = min(bound.upperBound, blockRange.upperBound)
            for sample in lower..<upper { samples[index].append(Float(block[sample - position]) / 32768) }
        }
        position += block.count
    }

    public mutating func finish() -> [VoicePiece] {
        let embeddings = encoder.embeddings(of: samples)
        return zip(pieces, embeddings).compactMap { piece, embedding in
            embedding.isEmpty ? nil : VoicePiece(start: piece.lowerBound, end: piece.upperBound, embedding: embedding)
        }
    }
}
