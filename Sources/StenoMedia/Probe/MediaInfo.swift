public import StenoCore

/// What a probe finds in a recording: enough to plan its work before decoding anything.
public struct MediaInfo: Sendable, Hashable {
    /// FFmpeg's demuxer names, such as `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`.
    public var container: String
    public var containerLongName: String?
    /// The length of the audio: the audio stream's declared duration, or the container's when
    /// the stream has none (Matroska). It is what the container declares; decoding reports a
    /// shortfall when the data holds less.
    public var duration: MediaTime?
    public var audio: AudioStreamInfo
    /// Whether the container also holds video (a film, a recorded talk, cover art).
    public var hasVideo: Bool
    /// Normalised chapters that tile `[0, duration)`; see `ChapterNormalizer`.
    public var chapters: [Chapter]
    /// The chapter marks as the container declares them, before normalisation.
    public var declaredChapters: [Chapter]
    /// Container metadata title, when present.
    public var title: String?
}
