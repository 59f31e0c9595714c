import CFFmpeg

/// The one place where FFmpeg return codes become `MediaError`s.
///
/// The same code means different things at different steps (invalid data while opening means
/// "not a media file", while decoding "corrupt"), so callers say which step they are at.
enum FFmpegCall {
    enum Step: Sendable {
        case opening
        case reading
        case decoding
        case encoding
        case internalSetup
    }

    /// Returns `code` when it is not an error, and throws the matching `MediaError` otherwise.
    @discardableResult
    static func check(_ code: Int32, _ call: String, step: Step, source: String?) throws(MediaError) -> Int32 {
        guard code < 0 else { return code }
        throw error(for: code, call, step: step, source: source)
    }

    static func error(for code: Int32, _ call: String, step: Step, source: String?) -> MediaError {
        let message = Self.message(for: code)
        let isNetworkSource = source.map { $0.hasPrefix("http://") || $0.hasPrefix("https://") } ?? false
        let (errorCode, reason): (MediaError.Code, String) = switch code {
        case steno_averror(ENOENT): (.fileNotFound, "no such file")
        case steno_averror(EACCES): (.permissionDenied, "permission denied")
        case steno_averror(EPERM) where step == .opening: (.permissionDenied, "permission denied")
        case steno_averror(ENOMEM): (.internalFailure, "out of memory")
        case steno_averror_http_not_found(): (.sourceRejected, "the server answered 404 Not Found")
        case steno_averror_http_unauthorized(): (.sourceRejected, "the server answered 401 Unauthorized")
        case steno_averror_http_forbidden(): (.sourceRejected, "the server answered 403 Forbidden")
        case steno_averror_http_bad_request(): (.sourceRejected, "the server answered 400 Bad Request")
        case steno_averror_http_other_4xx(): (.sourceRejected, "the server answered with a 4xx client error")
        case steno_averror_http_server_error(): (.network, "the server answered with a 5xx server error")
        case steno_averror(ECONNREFUSED): (.network, "the connection was refused")
        case steno_averror(ECONNRESET): (.network, "the connection was reset")
        case steno_averror(ETIMEDOUT): (.network, "the connection timed out")
        case steno_averror(EHOSTUNREACH), steno_averror(ENETUNREACH): (.network, "the host is unreachable")
        case steno_averror_protocol_not_found(): (.notMediaFile, "the address uses a protocol this FFmpeg build cannot read")
        case steno_averror_demuxer_not_found(): (.notMediaFile, "no demuxer recognises the data")
        case steno_averror_decoder_not_found(): (.unsupportedCodec, "no decoder for the audio codec")
        case steno_averror_encoder_not_found(): (.unsupportedCodec, "no encoder for the output codec")
        case steno_averror_stream_not_found(): (.noAudioStream, "the file has no audio stream")
        case steno_averror_patchwelcome(): (.unsupportedCodec, "the data uses a feature FFmpeg does not implement")
        case steno_averror_invaliddata(), steno_averror(EINVAL):
            switch step {
            case .opening: (.notMediaFile, "the data is not in a media format FFmpeg recognises")
            case .reading, .decoding: (.corrupt, "the data is damaged")
            case .encoding, .internalSetup: (.internalFailure, "FFmpeg rejected the arguments")
            }
        case steno_averror(EIO), steno_averror_eof():
            if isNetworkSource {
                (.network, "reading from the server failed")
            } else {
                switch step {
                case .opening, .reading, .decoding: (.truncated, "the data ends unexpectedly")
                case .encoding, .internalSetup: (.internalFailure, "writing the output failed")
                }
            }
        default:
            if isNetworkSource && (step == .opening || step == .reading) {
                (.network, "reading from the server failed")
            } else {
                switch step {
                case .opening: (.notMediaFile, "FFmpeg cannot open the data")
                case .reading, .decoding: (.corrupt, "FFmpeg cannot read the data")
                case .encoding, .internalSetup: (.internalFailure, "FFmpeg failed")
                }
            }
        }
        return MediaError(errorCode, reason, source: source, ffmpegCall: call, ffmpegMessage: message)
    }

    /// FFmpeg's own text for an error code (what `av_err2str` gives in C).
    static func message(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 {
            return "error \(code)"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
