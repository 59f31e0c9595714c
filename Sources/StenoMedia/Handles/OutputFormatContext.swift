import CFFmpeg

/// Owns an output `AVFormatContext` (a muxer); its I/O context belongs to a `MemoryOutput`.
final class OutputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>

    init(formatName: String) throws(MediaError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegCall.check(avformat_alloc_output_context2(&context, nil, formatName, nil), "avformat_alloc_output_context2(\(formatName))", step: .internalSetup, source: nil)
        guard let context else {
            throw MediaError(.internalFailure, "no muxer named \(formatName)", ffmpegCall: "avformat_alloc_output_context2")
        }
        self.pointer = context
    }

    deinit {
        // The custom AVIOContext is freed by its owner, not here (AVFMT_FLAG_CUSTOM_IO).
        pointer.pointee.pb = nil
        avformat_free_context(pointer)
    }
}
