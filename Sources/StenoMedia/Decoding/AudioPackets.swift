import CFFmpeg

/// Where a reader's audio packets come from: `av_read_frame` and `avformat_seek_file` as the
/// decoder and the probe use them, with FFmpeg's return codes.
protocol AudioPackets: AnyObject {
    /// Reads the next packet (of any stream) into `packet`: 0, `AVERROR_EOF` or another error.
    func read(into packet: UnsafeMutablePointer<AVPacket>) -> Int32
    /// Seeks the audio stream to the last packet at or before `target` (in the stream's time
    /// base): a negative error code when it cannot.
    func seek(to target: Int64) -> Int32
    /// The audio stream's average bit rate as FFmpeg's demuxer states it for the whole file.
    func bitRate(of stream: UnsafeMutablePointer<AVStream>) -> Int64
}

/// The demuxer reads every packet: all formats but long MP4 tracks.
final class DemuxedPackets: AudioPackets {
    private let input: InputFormatContext
    private let streamIndex: Int32

    init(input: InputFormatContext, streamIndex: Int32) {
        self.input = input
        self.streamIndex = streamIndex
    }

    func read(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        av_read_frame(input.pointer, packet)
    }

    func seek(to target: Int64) -> Int32 {
        avformat_seek_file(input.pointer, streamIndex, Int64.min, target, target, 0)
    }

    func bitRate(of stream: UnsafeMutablePointer<AVStream>) -> Int64 {
        stream.pointee.codecpar.pointee.bit_rate
    }
}
