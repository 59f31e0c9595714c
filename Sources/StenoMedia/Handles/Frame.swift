import CFFmpeg

/// Owns one `AVFrame`.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(MediaError) {
        guard let pointer = av_frame_alloc() else {
            throw MediaError(.internalFailure, "out of memory allocating a frame", ffmpegCall: "av_frame_alloc")
        }
        self.pointer = pointer
    }

    func unref() { av_frame_unref(pointer) }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&pointer)
    }
}
