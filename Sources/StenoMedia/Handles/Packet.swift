import CFFmpeg

/// Owns one `AVPacket`.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(MediaError) {
        guard let pointer = av_packet_alloc() else {
            throw MediaError(.internalFailure, "out of memory allocating a packet", ffmpegCall: "av_packet_alloc")
        }
        self.pointer = pointer
    }

    func unref() { av_packet_unref(pointer) }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&pointer)
    }
}
