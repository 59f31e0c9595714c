import CFFmpeg
import Logging
import StenoCore
import StenoInfrastructure

/// Decodes `[start, end)` of a reader's audio stream to 16 kHz mono s16 and hands it on in
/// blocks, sample-exact: output sample `i` is the one at `i / 16000` s on the media's clock.
///
/// The media's clock starts at the stream's `start_time`. Sample indices follow
/// `MediaTime.sampleIndex(rate:)`, so the range yields `end.sampleIndex - start.sampleIndex`
/// samples exactly. Memory holds one decoded frame and its resampled copy, whatever the range.
final class RangeDecoder {
    enum Outcome {
        case finished(DecodeReport)
        /// The seek failed or landed after the start: decode again on a fresh reader from the beginning.
        case needsFreshReader
    }

    typealias Deliver = (UnsafeBufferPointer<Int16>) throws(MediaError) -> Void

    private let reader: MediaReader
    private let startIndex: Int64
    private let endIndex: Int64
    private let endTolerance: Int64
    private let allowSeek: Bool
    private let cancelled: CancellationSignal?
    private let deliver: Deliver

    private var nextIndex: Int64?
    private var resampler: Resampler?
    private var output: [Int16] = []
    private var report = DecodeReport(samples: 0, paddedSamples: 0, seeked: false, skippedPackets: 0, resamplerRebuilds: 0)
    private var reachedEnd = false
    private var needsFreshReader = false

    private static let maximumSkippedPackets = 100

    init(reader: MediaReader, range: Range<MediaTime>, endTolerance: MediaTime, allowSeek: Bool,
         cancelled: CancellationSignal?, deliver: @escaping Deliver) {
        self.reader = reader
        self.startIndex = range.lowerBound.sampleIndex(rate: MediaReader.outputRate)
        self.endIndex = range.upperBound.sampleIndex(rate: MediaReader.outputRate)
        self.endTolerance = endTolerance.sampleIndex(rate: MediaReader.outputRate)
        self.allowSeek = allowSeek
        self.cancelled = cancelled
        self.deliver = deliver
    }

    func run() throws(MediaError) -> Outcome {
        guard startIndex < endIndex else { return .finished(report) }
        if !position() { return .needsFreshReader }
        let packet = try Packet()
        let frame = try Frame()

        while !reachedEnd {
            if cancelled?.isCancelled == true {
                throw MediaError(.cancelled, "decoding stopped because the calling task was cancelled", source: reader.source)
            }
            let read = reader.packets.read(into: packet.pointer)
            if read == steno_averror_eof() { break }
            try FFmpegCall.check(read, "av_read_frame", step: .reading, source: reader.source)
            defer { packet.unref() }
            guard packet.pointer.pointee.stream_index == reader.streamIndex else { continue }
            try send(packet.pointer, frame: frame)
            if needsFreshReader { return .needsFreshReader }
        }
        if !reachedEnd {
            try send(nil, frame: frame)
            if needsFreshReader { return .needsFreshReader }
            if let resampler, !reachedEnd { try drain(resampler) }
        }
        try finishShort()
        return .finished(report)
    }

    /// Seeks to a second before the start (never before the stream's first packet), or stays at
    /// the beginning of a fresh input. Returns false when only a fresh reader can go on.
    private func position() -> Bool {
        let stream = reader.stream.pointee
        let streamStart = stream.start_time == steno_av_nopts_value() ? 0 : stream.start_time
        let fresh = !reader.hasReadPackets
        reader.hasReadPackets = true
        if fresh && (startIndex == 0 || !allowSeek) { return true }
        if !allowSeek { return false }

        let preRoll = MediaTime(samples: max(0, startIndex - Int64(MediaReader.outputRate)), rate: MediaReader.outputRate)
        let target = preRoll.ticks(timeBase: Int64(stream.time_base.num), Int64(stream.time_base.den)) + streamStart
        let sought = reader.packets.seek(to: target)
        if sought < 0 {
            reader.logger.debug("seek failed; decoding from the beginning instead", metadata: [
                "source": "\(reader.source)", "target": "\(preRoll)", "ffmpeg_error": "\(FFmpegCall.message(for: sought))",
            ])
            return false
        }
        avcodec_flush_buffers(reader.decoder.pointer)
        report.seeked = true
        return true
    }

    private func send(_ packet: UnsafeMutablePointer<AVPacket>?, frame: Frame) throws(MediaError) {
        let sent = avcodec_send_packet(reader.decoder.pointer, packet)
        if sent == steno_averror_invaliddata() {
            try skipDamagedPacket()
            return
        }
        if sent != steno_averror(EAGAIN) && sent != steno_averror_eof() {
            try FFmpegCall.check(sent, "avcodec_send_packet", step: .decoding, source: reader.source)
        }
        while !reachedEnd && !needsFreshReader {
            let received = avcodec_receive_frame(reader.decoder.pointer, frame.pointer)
            if received == steno_averror(EAGAIN) || received == steno_averror_eof() { break }
            if received == steno_averror_invaliddata() {
                try skipDamagedPacket()
                continue
            }
            try FFmpegCall.check(received, "avcodec_receive_frame", step: .decoding, source: reader.source)
            defer { frame.unref() }
            try convert(frame.pointer)
        }
        if sent == steno_averror(EAGAIN), let packet, !reachedEnd, !needsFreshReader {
            // The decoder was full; it has been drained, so the packet fits now.
            try send(packet, frame: frame)
        }
    }

    private func skipDamagedPacket() throws(MediaError) {
        report.skippedPackets += 1
        if report.skippedPackets > Self.maximumSkippedPackets {
            throw MediaError(.corrupt, "more than \(Self.maximumSkippedPackets) damaged packets in the audio stream", source: reader.source)
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws(MediaError) {
        if nextIndex == nil {
            guard try anchor(at: frame) else { return }
        }
        let current: Resampler
        if let resampler, resampler.accepts(frame) {
            current = resampler
        } else {
            if let old = resampler {
                try drain(old)
                report.resamplerRebuilds += 1
                reader.logger.debug("audio shape changed mid-stream; rebuilding the resampler", metadata: [
                    "source": "\(reader.source)", "sample_rate": "\(frame.pointee.sample_rate)",
                    "channels": "\(frame.pointee.ch_layout.nb_channels)",
                ])
            }
            current = try Resampler(matching: frame, outputRate: Int32(MediaReader.outputRate), source: reader.source)
            resampler = current
        }
        let capacity = swr_get_out_samples(current.pointer, frame.pointee.nb_samples)
        try FFmpegCall.check(capacity, "swr_get_out_samples", step: .decoding, source: reader.source)
        let input = UnsafeMutableRawPointer(frame.pointee.extended_data).map {
            $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        }
        try resample(current, input: input, count: frame.pointee.nb_samples, capacity: capacity)
    }

    /// Places the first decoded frame on the output clock. Returns false when it cannot be
    /// placed and a fresh reader must start over.
    private func anchor(at frame: UnsafeMutablePointer<AVFrame>) throws(MediaError) -> Bool {
        let stream = reader.stream.pointee
        let timestamp = frame.pointee.best_effort_timestamp
        let firstIndex: Int64
        if timestamp == steno_av_nopts_value() {
            guard !report.seeked else { needsFreshReader = true; return false }
            firstIndex = 0
        } else {
            let streamStart = stream.start_time == steno_av_nopts_value() ? 0 : stream.start_time
            firstIndex = MediaTime(value: timestamp - streamStart, timeBase: Int64(stream.time_base.num), Int64(stream.time_base.den))
                .sampleIndex(rate: MediaReader.outputRate)
        }
        if report.seeked && firstIndex > startIndex {
            // The demuxer landed past the start; only a decode from the beginning is exact.
            needsFreshReader = true
            return false
        }
        nextIndex = firstIndex
        if firstIndex > startIndex {
            // The audio begins after 0 (a video's sound starting late): that stretch is silence.
            try padSilence(min(firstIndex, endIndex) - startIndex)
            if firstIndex >= endIndex { reachedEnd = true }
        }
        return true
    }

    private func drain(_ resampler: Resampler) throws(MediaError) {
        let capacity = swr_get_out_samples(resampler.pointer, 0)
        guard capacity > 0 else { return }
        try resample(resampler, input: nil, count: 0, capacity: capacity)
    }

    private func resample(_ resampler: Resampler, input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32, capacity: Int32) throws(MediaError) {
        if output.count < Int(capacity) {
            output = [Int16](repeating: 0, count: Int(capacity))
        }
        let converted = output.withUnsafeMutableBytes { bytes -> Int32 in
            var planes: [UnsafeMutablePointer<UInt8>?] = [bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)]
            return planes.withUnsafeMutableBufferPointer { swr_convert(resampler.pointer, $0.baseAddress, capacity, input, count) }
        }
        try FFmpegCall.check(converted, "swr_convert", step: .decoding, source: reader.source)
        try emit(count: Int(converted))
    }

    private func emit(count: Int) throws(MediaError) {
        guard let blockStart = nextIndex, count > 0 else { return }
        let blockEnd = blockStart + Int64(count)
        nextIndex = blockEnd
        let from = max(blockStart, startIndex)
        let to = min(blockEnd, endIndex)
        if from < to {
            try output.withUnsafeBufferPointer { buffer throws(MediaError) in
                try deliver(UnsafeBufferPointer(rebasing: buffer[Int(from - blockStart)..<Int(to - blockStart)]))
            }
            report.samples += to - from
        }
        if blockEnd >= endIndex { reachedEnd = true }
    }

    /// Delivers `count` zero samples in bounded blocks.
    private func padSilence(_ count: Int64) throws(MediaError) {
        let zeros = [Int16](repeating: 0, count: 4096)
        var left = count
        while left > 0 {
            let block = Int(min(left, Int64(zeros.count)))
            try zeros.withUnsafeBufferPointer { buffer throws(MediaError) in
                try deliver(UnsafeBufferPointer(rebasing: buffer[0..<block]))
            }
            left -= Int64(block)
        }
        report.samples += count
        report.paddedSamples += count
    }

    /// At the end of the data: pads a shortfall within tolerance, reports a larger one.
    private func finishShort() throws(MediaError) {
        if reachedEnd { return }
        let source = reader.source
        guard let nextIndex else {
            throw MediaError(
                .truncated,
                "the container declares audio up to \(MediaTime(samples: endIndex, rate: MediaReader.outputRate)) s but no audio frame could be decoded",
                source: source)
        }
        let missing = endIndex - max(nextIndex, startIndex)
        if missing > endTolerance {
            let reached = MediaTime(samples: nextIndex, rate: MediaReader.outputRate)
            let wanted = MediaTime(samples: endIndex, rate: MediaReader.outputRate)
            throw MediaError(
                .truncated,
                "the audio ends at \(reached) s but \(wanted) s were asked for, within the declared duration: \(MediaTime(samples: missing, rate: MediaReader.outputRate)) s missing",
                source: source)
        }
        try padSilence(missing)
        reachedEnd = true
    }
}
