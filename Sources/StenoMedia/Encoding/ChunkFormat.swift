/// How a chunk is encoded for upload.
public enum ChunkFormat: Sendable, Hashable, CustomStringConvertible {
    /// FLAC, 16-bit: lossless, cheap to encode, about 1 MB per minute of 16 kHz speech.
    case flac
    /// Ogg Opus at `bitsPerSecond`: about 6x smaller than FLAC at 24 kbit/s and 40x the CPU;
    /// for slow uplinks or when the upload limit binds.
    case opus(bitsPerSecond: Int)

    public static let defaultOpusBitRate = 24_000

    public var fileExtension: String {
        switch self {
        case .flac: "flac"
        case .opus: "ogg"
        }
    }

    public var mimeType: String {
        switch self {
        case .flac: "audio/flac"
        case .opus: "audio/ogg"
        }
    }

    public var description: String {
        switch self {
        case .flac: "flac"
        case .opus(let bitsPerSecond): "opus \(bitsPerSecond / 1000)k"
        }
    }

    var muxerName: String {
        switch self {
        case .flac: "flac"
        case .opus: "ogg"
        }
    }

    var encoderName: String {
        switch self {
        case .flac: "flac"
        case .opus: "libopus"
        }
    }
}
