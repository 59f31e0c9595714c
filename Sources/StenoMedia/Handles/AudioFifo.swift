import CFFmpeg

/// Owns an `AVAudioFifo` of mono signed 16-bit samples, so the encoder gets frames of exactly its `frame_size`.
final class AudioFifo {
    let pointer: OpaquePointer

    init(capacity: Int32) throws(MediaError) {
        guard let pointer = av_audio_fifo_alloc(AV_SAMPLE_FMT_S16, 1, capacity) else {
            throw MediaError(.internalFailure, "out of memory allocating an audio FIFO", ffmpegCall: "av_audio_fifo_alloc")
        }
        self.pointer = pointer
    }

    var count: Int32 { av_audio_fifo_size(pointer) }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws(MediaError) {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        var planes: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(mutating: base)]
        let written = planes.withUnsafeMutableBufferPointer { av_audio_fifo_write(pointer, $0.baseAddress, Int32(samples.count)) }
        try FFmpegCall.check(written, "av_audio_fifo_write", step: .encoding, source: nil)
    }

    /// Moves `count` samples into `frame`'s first plane.
    func read(_ count: Int32, into frame: UnsafeMutablePointer<AVFrame>) throws(MediaError) {
        var planes: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(frame.pointee.data.0)]
        let read = planes.withUnsafeMutableBufferPointer { av_audio_fifo_read(pointer, $0.baseAddress, count) }
        try FFmpegCall.check(read, "av_audio_fifo_read", step: .encoding, source: nil)
    }

    deinit {
        av_audio_fifo_free(pointer)
    }
}
