import CFFmpeg

/// Owns an opened input `AVFormatContext` (a demuxer reading a file or a URL).
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let source: String
    /// The custom I/O the demuxer reads through, kept until the input is closed.
    private let io: PatchedInput?

    /// Opens `address` and reads enough of it to know its streams.
    init(address: String, options: [String: String], source: String) throws(MediaError) {
        self.source = source
        self.io = nil
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

    /// Opens the demuxer on `io`'s bytes; `address` only names the input (FFmpeg guesses formats
    /// from its extension too).
    init(io: PatchedInput, address: String, source: String) throws(MediaError) {
        self.source = source
        self.io = io
        guard var context = avformat_alloc_context() else {
            throw MediaError(.internalFailure, "out of memory allocating an input", source: source, ffmpegCall: "avformat_alloc_context")
        }
        context.pointee.pb = io.context
        var opened: UnsafeMutablePointer<AVFormatContext>? = context
        // On failure avformat_open_input frees the context (but never a custom pb).
        try FFmpegCall.check(avformat_open_input(&opened, address, nil, nil), "avformat_open_input", step: .opening, source: source)
        guard let opened else {
            throw MediaError(.internalFailure, "FFmpeg opened the input but returned no context", source: source, ffmpegCall: "avformat_open_input")
        }
        context = opened
        self.pointer = context
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
