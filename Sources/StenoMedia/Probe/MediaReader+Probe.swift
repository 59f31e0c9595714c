import CFFmpeg
import StenoCore
import StenoInfrastructure

extension MediaReader {
    /// Describes the recording from its headers, and checks with a few seeks that the audio
    /// reaches the declared end; decodes nothing.
    func probe(verifyingEnd: Bool) throws(MediaError) -> MediaInfo {
        let format = input.pointer.pointee
        let parameters = stream.pointee.codecpar.pointee
        let declared = declaredChapters()
        let duration = self.duration
        if verifyingEnd, let duration, let end = truncatedEnd(declared: duration) {
            let holds = end == .zero ? "none that can be read" : "only about \(end.clockDescription)"
            throw MediaError(
                .truncated,
                "the file ends early: it declares \(duration.clockDescription) of audio but holds \(holds) "
                    + "(a download cut short?); fetch the whole file again",
                source: source)
        }
        var layoutName: String?
        if parameters.ch_layout.order != AV_CHANNEL_ORDER_UNSPEC {
            var buffer = [CChar](repeating: 0, count: 64)
            var layout = parameters.ch_layout
            if av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
                layoutName = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        let descriptor = avcodec_descriptor_get(parameters.codec_id)
        let bitRate = packets.bitRate(of: stream)
        let audio = AudioStreamInfo(
            index: Int(stream.pointee.index),
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            codecLongName: descriptor?.pointee.long_name.map { String(cString: $0) },
            sampleRate: Int(parameters.sample_rate),
            channels: Int(parameters.ch_layout.nb_channels),
            channelLayout: layoutName,
            bitRate: bitRate > 0 ? Int(bitRate) : nil)
        let hasVideo = input.streams.contains { candidate in
            candidate.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                && (candidate.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) == 0
        }
        return MediaInfo(
            container: format.iformat.map { String(cString: $0.pointee.name) } ?? "unknown",
            containerLongName: format.iformat?.pointee.long_name.map { String(cString: $0) },
            duration: duration,
            audio: audio,
            hasVideo: hasVideo,
            chapters: ChapterNormalizer.normalize(declared, duration: duration),
            declaredChapters: declared,
            title: Self.metadataValue(format.metadata, "title"))
    }

    /// The audio stream's declared duration in its own time base, else the container's.
    var duration: MediaTime? {
        let timeBase = stream.pointee.time_base
        if stream.pointee.duration != steno_av_nopts_value(), stream.pointee.duration > 0, timeBase.num > 0, timeBase.den > 0 {
            return MediaTime(value: stream.pointee.duration, timeBase: Int64(timeBase.num), Int64(timeBase.den))
        }
        let containerDuration = input.pointer.pointee.duration
        if containerDuration != steno_av_nopts_value(), containerDuration > 0 {
            return MediaTime(value: containerDuration, timeBase: 1, Int64(AV_TIME_BASE))
        }
        return nil
    }

    /// Chapter marks exactly as declared, each converted from its own time base.
    func declaredChapters() -> [Chapter] {
        let format = input.pointer.pointee
        return (0..<Int(format.nb_chapters)).compactMap { position -> Chapter? in
            guard let chapter = format.chapters[position]?.pointee else { return nil }
            let timeBase = chapter.time_base
            guard timeBase.num > 0, timeBase.den > 0 else { return nil }
            return Chapter(
                index: position,
                title: Self.metadataValue(chapter.metadata, "title"),
                start: MediaTime(value: chapter.start, timeBase: Int64(timeBase.num), Int64(timeBase.den)),
                end: MediaTime(value: chapter.end, timeBase: Int64(timeBase.num), Int64(timeBase.den)))
        }
    }

    static func metadataValue(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let dictionary, let entry = av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value else { return nil }
        return String(cString: value)
    }
}

extension MediaReader {
    /// Where the audio really ends when the file holds less than its header declares (a download
    /// cut short, a book whose index promises 47 hours over a few minutes of data); nil when
    /// audio is there up to the declared end, or when the format cannot seek and so cannot tell.
    ///
    /// Seeks instead of decoding: a look near the end, then a bisection of at most 24 seeks to
    /// name the real end to about a second, whatever the length of the book.
    func truncatedEnd(declared: MediaTime) -> MediaTime? {
        guard declared.seconds > 2 else { return nil }
        // First the opening packet, read without a seek: an index can describe hours of audio
        // that are not in the file at all, and then even a seek to the start fails.
        let opening = readsAudio(near: .zero)
        hasReadPackets = true
        if opening == false { return .zero }
        let tail = MediaTime.min(MediaTime(seconds: 5), MediaTime(milliseconds: Int64(declared.seconds * 100)))
        // A seek past the end of the data fails outright in some formats (FLAC, MP3 with a TOC),
        // so a failed seek counts as "no audio there" once a seek elsewhere has found audio;
        // a format that cannot seek at all tells nothing.
        let nearEnd = hasAudio(at: declared - tail)
        guard nearEnd != true else { return nil }
        var good = MediaTime.zero
        var bad = declared - tail
        var foundAudio = false
        for _ in 0..<24 where (bad - good).seconds > 1 {
            let middle = MediaTime(milliseconds: Int64((good.seconds + bad.seconds) * 500))
            if hasAudio(at: middle) == true {
                good = middle
                foundAudio = true
            } else {
                bad = middle
            }
        }
        return nearEnd == false || foundAudio ? good : nil
    }

    /// Whether a whole audio packet can be read at `time`; nil when the seek itself fails.
    private func hasAudio(at time: MediaTime) -> Bool? {
        let timeBase = stream.pointee.time_base
        let start = stream.pointee.start_time == steno_av_nopts_value() ? 0 : stream.pointee.start_time
        let target = time.ticks(timeBase: Int64(timeBase.num), Int64(timeBase.den)) + start
        guard packets.seek(to: target) >= 0 else { return nil }
        return readsAudio(near: time)
    }

    /// Whether the next packet of the audio stream is whole and lies near `time`.
    private func readsAudio(near time: MediaTime) -> Bool? {
        let timeBase = stream.pointee.time_base
        let start = stream.pointee.start_time == steno_av_nopts_value() ? 0 : stream.pointee.start_time
        guard let packet = try? Packet() else { return nil }
        // Packets of other streams are discarded, but a container may still hand over a few.
        for _ in 0..<64 {
            let read = packets.read(into: packet.pointer)
            defer { packet.unref() }
            // Only the end of the data says "truncated"; a network error says nothing either way.
            if read < 0 { return read == steno_averror_eof() || !location.isNetwork ? false : nil }
            if packet.pointer.pointee.stream_index == streamIndex, packet.pointer.pointee.size > 0 {
                guard packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT == 0 else { return false }
                // A seek lands on the last packet the index knows at or before the target: an index
                // that stops early (a book declaring 47 hours over 80 KB) puts it far before.
                let pts = packet.pointer.pointee.pts
                guard pts != steno_av_nopts_value() else { return true }
                let landed = MediaTime(value: pts - start, timeBase: Int64(timeBase.num), Int64(timeBase.den))
                return landed.seconds >= time.seconds * 0.98 - 2
            }
        }
        return true
    }
}
