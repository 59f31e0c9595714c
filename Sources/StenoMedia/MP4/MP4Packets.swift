import CFFmpeg

/// The audio packets of a long MP4 track: the demuxer's for the head it was shown (`MP4Head`),
/// where FFmpeg applies the encoder delay and the edit, then the file's own samples read through
/// the cursor, with the timestamps FFmpeg would have given them.
final class MP4Packets: AudioPackets {
    private let input: InputFormatContext
    private let bytes: ByteInput
    private let streamIndex: Int32
    private let cursor: MP4SampleCursor
    private let handOver: Int
    private let handOverTime: Int64
    /// Where the edit ends on the stream's clock: FFmpeg drops the samples after it and cuts the
    /// last one's duration to it.
    private let editEnd: Int64?
    /// The sum of every sample's duration, before the edit.
    private let samplesDuration: Int64
    /// The stream's duration as FFmpeg gives it for the whole file: the samples' durations, cut
    /// to the track's one edit when there is one.
    let duration: Int64
    private var readsFile = false
    private static let largestSample = 16 * 1024 * 1024

    /// Nil when the demuxer's index of the head does not match the tables sample for sample:
    /// the reader then opens the file the ordinary way.
    init?(
        input: InputFormatContext, bytes: ByteInput, stream: UnsafeMutablePointer<AVStream>, track: MP4Track, head: MP4Head,
        movieTimescale: Int64
    ) throws(AVIOFailure) {
        self.input = input
        self.bytes = bytes
        self.streamIndex = stream.pointee.index
        cursor = try MP4SampleCursor(track: track, bytes: bytes)
        samplesDuration = try cursor.trackDuration()
        if let edits = track.edits {
            duration = min(av_rescale(edits.firstDuration, track.timescale, movieTimescale), samplesDuration - edits.firstMediaTime)
            editEnd = duration
        } else {
            duration = samplesDuration
            editEnd = nil
        }
        handOver = head.handOver
        guard stream.pointee.time_base.num == 1, Int64(stream.pointee.time_base.den) == track.timescale,
              avformat_index_get_entries_count(stream) == head.samples else { return nil }
        var handOverTime: Int64?
        for index in [0, handOver - 1, handOver] {
            try cursor.seek(toSample: index)
            guard let sample = try cursor.next(), let entry = avformat_index_get_entry(stream, Int32(index)),
                  entry.pointee.pos == sample.offset, entry.pointee.timestamp == sample.time,
                  Int(entry.pointee.size) == sample.size else { return nil }
            if index == handOver { handOverTime = sample.time }
        }
        guard let handOverTime else { return nil }
        self.handOverTime = handOverTime
    }

    func read(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        if !readsFile {
            let read = av_read_frame(input.pointer, packet)
            let handsOver = read == steno_averror_eof()
                || (read >= 0 && packet.pointee.stream_index == streamIndex
                    && packet.pointee.dts != steno_av_nopts_value() && packet.pointee.dts >= handOverTime)
            guard handsOver else { return read }
            if read >= 0 { av_packet_unref(packet) }
            do { try cursor.seek(toSample: handOver) } catch { return error.code }
            readsFile = true
        }
        return readFromFile(into: packet)
    }

    func seek(to target: Int64) -> Int32 {
        if target < handOverTime {
            readsFile = false
            return avformat_seek_file(input.pointer, streamIndex, Int64.min, target, target, 0)
        }
        do {
            try cursor.seek(toSample: max(handOver, try cursor.sample(atOrBefore: target)))
        } catch {
            return error.code
        }
        readsFile = true
        return 0
    }

    /// FFmpeg's mov demuxer states the bytes of all samples over their durations, before the
    /// edit; it saw only the head's, so this sums the sizes again (a few milliseconds for a
    /// 40-hour book). Only probing asks.
    func bitRate(of stream: UnsafeMutablePointer<AVStream>) -> Int64 {
        let track = cursor.track
        let stated = stream.pointee.codecpar.pointee.bit_rate
        var bytes = Int64(track.constantSampleSize) * Int64(track.sampleCount)
        do {
            if track.constantSampleSize == 0 {
                let sizes = MP4TableReader(track.sampleSizes, bytes: self.bytes)
                for index in 0..<track.sampleSizes.count {
                    bytes += Int64(try sizes.uint32(index))
                }
            }
        } catch {
            return stated
        }
        return samplesDuration > 0 ? av_rescale_rnd(bytes, track.timescale * 8, samplesDuration, AV_ROUND_DOWN) : stated
    }

    /// The next sample as a packet, as FFmpeg's mov demuxer makes it: a sample cut short by the
    /// end of the file comes flagged corrupt, none at all is the end.
    private func readFromFile(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        let sample: MP4SampleCursor.Sample
        do {
            guard let next = try cursor.next() else { return steno_averror_eof() }
            sample = next
            if let editEnd, sample.time >= editEnd { return steno_averror_eof() }
        } catch {
            return error.code
        }
        // An audio packet is a few kilobytes; a table naming a huge one is damaged, and would
        // otherwise have the worker allocate it.
        guard sample.size <= Self.largestSample else { return steno_averror_invaliddata() }
        let allocated = av_new_packet(packet, Int32(sample.size))
        guard allocated >= 0 else { return allocated }
        let filled: Int
        do {
            filled = try bytes.read(at: sample.offset, into: UnsafeMutableRawBufferPointer(start: packet.pointee.data, count: sample.size))
        } catch {
            av_packet_unref(packet)
            return error.code
        }
        if filled == 0 && sample.size > 0 {
            av_packet_unref(packet)
            return steno_averror_eof()
        }
        if filled < sample.size {
            av_shrink_packet(packet, Int32(filled))
            packet.pointee.flags |= AV_PKT_FLAG_CORRUPT
        }
        packet.pointee.stream_index = streamIndex
        packet.pointee.pts = sample.time
        packet.pointee.dts = sample.time
        packet.pointee.duration = editEnd.map { min(sample.duration, $0 - sample.time) } ?? sample.duration
        packet.pointee.pos = sample.offset
        packet.pointee.flags |= AV_PKT_FLAG_KEY
        return 0
    }
}
