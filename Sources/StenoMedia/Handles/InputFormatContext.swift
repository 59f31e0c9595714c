import CFFmpeg

/// Owns an opened input `AVFormatContext` (a demuxer reading a file or a URL).
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let source: String

    /// Opens `address` and reads enough of it to know its streams.
    init(address: String, options: [String: String], source: String) throws(MediaError) {
        self.source = source
        var context: UnsafeMutablePointer<AVFormatContext>?
        var dictionary: OpaquePointer?
        for (key, value) in options {
            av_dict_set(&dictionary, key, value, 0)
        }
        defer { av_dict_free(&dictionary) }
        try FFmpegCall.check(avformat_open_input(&context, address, nil, &dictionary), "avformat_open_input", step: .opening, source: source)
        guard let context else {
            throw MediaError(.internalFailure, "FFmpeg opened the input but returned no context", source: source, ffmpegCall: "avformat_open_input")
        }
        self.pointer = context
        // From here `deinit` closes the input if stream discovery fails.
        try FFmpegCall.check(avformat_find_stream_info(context, nil), "avformat_find_stream_info", step: .opening, source: source)
    }

    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(pointer.pointee.nb_streams)).compactMap { pointer.pointee.streams[$0] }
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }
}
