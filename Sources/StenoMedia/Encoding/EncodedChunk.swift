import Foundation
public import StenoCore

/// One encoded chunk, in memory, ready to upload.
public struct EncodedChunk: Sendable, Hashable {
    /// The audio range it holds, on the media's clock.
    public var range: Range<MediaTime>
    public var format: ChunkFormat
    /// The encoded file, as the encoder wrote it (uploads read it in place: no copy).
    public var data: [UInt8]
    /// 16 kHz samples encoded: exactly the range's sample count.
    public var samples: Int64
}
