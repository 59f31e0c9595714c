import CFFmpeg

/// Owns an `AVCodecContext`, for a decoder or an encoder.
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>

    init(codec: UnsafePointer<AVCodec>) throws(MediaError) {
        guard let pointer = avcodec_alloc_context3(codec) else {
            throw MediaError(.internalFailure, "out of memory allocating a codec context", ffmpegCall: "avcodec_alloc_context3")
        }
        self.pointer = pointer
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&pointer)
    }
}
