import CFFmpeg
import StenoCore

extension MediaReader {
    /// Describes the recording from its headers; decodes nothing.
    func probe() -> MediaInfo {
        let format = input.pointer.pointee
        let parameters = stream.pointee.codecpar.pointee
        let declared = declaredChapters()
        let duration = self.duration
        var layoutName: String?
        if parameters.ch_layout.order != AV_CHANNEL_ORDER_UNSPEC {
            var buffer = [CChar](repeating: 0, count: 64)
            var layout = parameters.ch_layout
            if av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
                layoutName = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        let descriptor = avcodec_descriptor_get(parameters.codec_id)
        let audio = AudioStreamInfo(
            index: Int(stream.pointee.index),
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            codecLongName: descriptor?.pointee.long_name.map { String(cString: $0) },
            sampleRate: Int(parameters.sample_rate),
            channels: Int(parameters.ch_layout.nb_channels),
            channelLayout: layoutName,
            bitRate: parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil)
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
