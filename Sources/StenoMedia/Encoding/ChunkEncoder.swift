import CFFmpeg
import Foundation

/// Encodes 16 kHz mono s16 samples, delivered in blocks of any size, into a FLAC or Ogg Opus
/// file in memory.
///
/// An `AVAudioFifo` regroups the blocks into frames of exactly the encoder's `frame_size`; only
/// the last frame may be shorter. When the output passes `limit` bytes, encoding stops with
/// `encodedTooLarge`, so an oversized chunk costs no more work than needed to know it.
final class ChunkEncoder {
    static let sampleRate: Int32 = 16_000

    let format: ChunkFormat
    private let output: MemoryOutput
    private let muxer: OutputFormatContext
    private let encoder: CodecContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let fifo: AudioFifo
    private let frame: Frame
    private let packet: Packet
    private let frameSize: Int32
    private var nextPresentation: Int64 = 0
    private var samplesAccepted: Int64 = 0

    /// `expectedSamples` sizes the output buffer once: FLAC at most about the 16-bit samples
    /// themselves, Opus its bit rate, each with room for headers.
    init(format: ChunkFormat, limit: Int?, expectedSamples: Int64 = 0) throws(MediaError) {
        self.format = format
        let estimate = switch format {
        case .flac: expectedSamples * 2
        case .opus(let bitsPerSecond): expectedSamples * Int64(bitsPerSecond) / 8 / Int64(Self.sampleRate) * 5 / 4
        }
        output = try MemoryOutput(limit: limit, reserving: Int(max(0, estimate)) + 64 * 1024)
        muxer = try OutputFormatContext(formatName: format.muxerName)
        guard let codec = avcodec_find_encoder_by_name(format.encoderName) else {
            throw MediaError(.unsupportedCodec, "this FFmpeg build has no \(format.encoderName) encoder", ffmpegCall: "avcodec_find_encoder_by_name")
        }
        encoder = try CodecContext(codec: codec)
        let context = encoder.pointer
        context.pointee.sample_fmt = AV_SAMPLE_FMT_S16
        context.pointee.sample_rate = Self.sampleRate
        context.pointee.ch_layout = steno_channel_layout_mono()
        context.pointee.time_base = AVRational(num: 1, den: Self.sampleRate)
        switch format {
        case .flac:
            // Measured on 60 min of 16 kHz speech with FFmpeg 5.1: level 5 (the default) is both
            // the fastest (1.6-1.9 s against 1.9-2.8 s for levels 0-2) and the smallest (62 MB
            // against 67-69 MB), so it is kept.
            context.pointee.compression_level = 5
        case .opus(let bitsPerSecond):
            context.pointee.bit_rate = Int64(bitsPerSecond)
        }
        if (muxer.pointer.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 {
            context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        }
        try FFmpegCall.check(avcodec_open2(context, codec, nil), "avcodec_open2(\(format.encoderName))", step: .internalSetup, source: nil)
        frameSize = context.pointee.frame_size > 0 ? context.pointee.frame_size : 1152

        guard let stream = avformat_new_stream(muxer.pointer, nil) else {
            throw MediaError(.internalFailure, "out of memory adding an output stream", ffmpegCall: "avformat_new_stream")
        }
        self.stream = stream
        stream.pointee.time_base = context.pointee.time_base
        try FFmpegCall.check(avcodec_parameters_from_context(stream.pointee.codecpar, context), "avcodec_parameters_from_context", step: .internalSetup, source: nil)
        muxer.pointer.pointee.pb = output.context
        muxer.pointer.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        fifo = try AudioFifo(capacity: frameSize * 4)
        frame = try Frame()
        packet = try Packet()
        try checkWrite(avformat_write_header(muxer.pointer, nil), "avformat_write_header")
    }

    func append(_ samples: UnsafeBufferPointer<Int16>) throws(MediaError) {
        try fifo.write(samples)
        samplesAccepted += Int64(samples.count)
        while fifo.count >= frameSize {
            try encodeFrame(of: frameSize)
        }
    }

    /// Encodes what the FIFO still holds, flushes the encoder and the muxer, returns the file.
    func finish() throws(MediaError) -> (data: [UInt8], samples: Int64) {
        if fifo.count > 0 {
            try encodeFrame(of: fifo.count)
        }
        try sendAndWrite(nil)
        try checkWrite(av_write_trailer(muxer.pointer), "av_write_trailer")
        avio_flush(output.context)
        if output.exceededLimit {
            throw tooLarge(bytes: max(output.attemptedSize, output.bytes.count))
        }
        return (output.bytes, samplesAccepted)
    }

    private func encodeFrame(of count: Int32) throws(MediaError) {
        let pointer = frame.pointer
        frame.unref()
        pointer.pointee.nb_samples = count
        pointer.pointee.format = AV_SAMPLE_FMT_S16.rawValue
        pointer.pointee.sample_rate = Self.sampleRate
        pointer.pointee.ch_layout = steno_channel_layout_mono()
        try FFmpegCall.check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer", step: .encoding, source: nil)
        try fifo.read(count, into: pointer)
        pointer.pointee.pts = nextPresentation
        nextPresentation += Int64(count)
        try sendAndWrite(pointer)
    }

    private func sendAndWrite(_ frame: UnsafeMutablePointer<AVFrame>?) throws(MediaError) {
        try FFmpegCall.check(avcodec_send_frame(encoder.pointer, frame), "avcodec_send_frame", step: .encoding, source: nil)
        while true {
            let received = avcodec_receive_packet(encoder.pointer, packet.pointer)
            if received == steno_averror(EAGAIN) || received == steno_averror_eof() { return }
            try FFmpegCall.check(received, "avcodec_receive_packet", step: .encoding, source: nil)
            packet.pointer.pointee.stream_index = stream.pointee.index
            av_packet_rescale_ts(packet.pointer, encoder.pointer.pointee.time_base, stream.pointee.time_base)
            // Takes the packet's reference, leaving it blank for the next one.
            try checkWrite(av_interleaved_write_frame(muxer.pointer, packet.pointer), "av_interleaved_write_frame")
            if output.exceededLimit { throw tooLarge(bytes: max(output.attemptedSize, output.bytes.count)) }
        }
    }

    private func checkWrite(_ code: Int32, _ call: String) throws(MediaError) {
        if code < 0 && output.exceededLimit {
            throw tooLarge(bytes: max(output.attemptedSize, output.bytes.count))
        }
        try FFmpegCall.check(code, call, step: .encoding, source: nil)
    }

    private func tooLarge(bytes: Int) -> MediaError {
        var error = MediaError(.encodedTooLarge, "the encoded chunk passed the upload limit of \(output.limit ?? 0) bytes (reached \(bytes) bytes before encoding stopped); split it")
        error.encodedBytes = bytes
        error.limitBytes = output.limit
        return error
    }
}
