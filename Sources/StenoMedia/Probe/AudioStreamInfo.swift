/// The audio stream Steno reads from a recording.
public struct AudioStreamInfo: Sendable, Hashable, Codable {
    /// The stream's index in the container, as ffprobe numbers it.
    public var index: Int
    /// FFmpeg's short codec name: `aac`, `mp3`, `opus`, `flac`...
    public var codec: String
    public var codecLongName: String?
    public var sampleRate: Int
    public var channels: Int
    /// `mono`, `stereo`, `5.1`...; nil when the container does not say.
    public var channelLayout: String?
    /// Bits per second when the container or codec declares it.
    public var bitRate: Int?
}
