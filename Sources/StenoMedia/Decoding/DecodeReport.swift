/// What one range decode did, for logs and tests.
public struct DecodeReport: Sendable, Hashable {
    /// Samples delivered, silence padding included: always the range's exact sample count.
    public var samples: Int64
    /// Samples of silence added at the start (audio that begins after 0) or at the end (a
    /// shortfall within `MediaFile.endTolerance(declared:)`).
    public var paddedSamples: Int64
    /// Whether the decode began with a seek, or read from the start of the stream.
    public var seeked: Bool
    /// Packets the decoder rejected as damaged and skipped.
    public var skippedPackets: Int
    /// How often the resampler was rebuilt because the input's rate, format or layout changed.
    public var resamplerRebuilds: Int
}
