public import StenoCore

/// A media failure with a stable code and a reason a person understands.
///
/// `description` is safe to log: a URL's user, password and query string are never part of it.
public struct MediaError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }

        public static let fileNotFound = Code(rawValue: "file_not_found")
        public static let permissionDenied = Code(rawValue: "permission_denied")
        /// A file of zero bytes: nothing was written to it.
        public static let emptyFile = Code(rawValue: "empty_file")
        /// No demuxer recognises the data: a text file, an image, a random blob.
        public static let notMediaFile = Code(rawValue: "not_media_file")
        /// A media file with video, subtitles or data but no audio.
        public static let noAudioStream = Code(rawValue: "no_audio_stream")
        /// The audio is in a codec this FFmpeg build cannot decode (or encode, for output).
        public static let unsupportedCodec = Code(rawValue: "unsupported_codec")
        /// The data ends before the container says it does: a cut-off download or copy, or a
        /// container that declares more duration than it holds.
        public static let truncated = Code(rawValue: "truncated")
        /// The data is damaged beyond what the decoder can skip.
        public static let corrupt = Code(rawValue: "corrupt")
        /// An http(s) source could not be reached or read (refused, reset, timed out, 5xx): may heal.
        public static let network = Code(rawValue: "network")
        /// An http(s) source answered with a 4xx client error (404, 401, 403, ...): asking again
        /// gives the same answer until someone fixes the URL or its access.
        /// The source names something Steno never reads: an unsupported URL scheme, a URL without a host.
        public static let unsupportedSource = Code(rawValue: "unsupported_source")
        public static let sourceRejected = Code(rawValue: "source_rejected")
        /// An encoded chunk came out over the upload limit: split it, never send it as is.
        public static let encodedTooLarge = Code(rawValue: "encoded_too_large")
        /// The caller asked for a range outside the recording, or an empty one.
        public static let invalidRange = Code(rawValue: "invalid_range")
        /// The calling task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// FFmpeg failed in a way that says nothing about the media (out of memory, a bug).
        public static let internalFailure = Code(rawValue: "internal")
    }

    public var code: Code
    /// The plain reason, such as "no audio stream: the file holds only video (h264)".
    public var reason: String
    /// The file path or the redacted URL.
    public var source: String?
    /// The FFmpeg call that failed and its message, for operators.
    public var ffmpegCall: String?
    public var ffmpegMessage: String?
    /// For `encodedTooLarge`: the encoded size and the limit, in bytes.
    public var encodedBytes: Int?
    public var limitBytes: Int?

    public init(_ code: Code, _ reason: String, source: String? = nil, ffmpegCall: String? = nil, ffmpegMessage: String? = nil) {
        self.code = code
        self.reason = reason
        self.source = source
        self.ffmpegCall = ffmpegCall
        self.ffmpegMessage = ffmpegMessage
    }

    public var description: String {
        var text = "media \(code): \(reason)"
        if let source { text += " (source \(source))" }
        if let ffmpegCall {
            text += " [\(ffmpegCall)\(ffmpegMessage.map { ": \($0)" } ?? "")]"
        }
        return text
    }

    /// What the worker does next; see docs/architecture.md, "Failures".
    public var failureClass: FailureClass {
        switch code {
        case .network: .transient
        case .sourceRejected: .media
        case .encodedTooLarge: .tooLarge
        case .cancelled: .cancelled
        case .internalFailure, .invalidRange: .internal
        default: .media
        }
    }
}
