import CFFmpeg
import Foundation
import Logging
import StenoCore
import StenoInfrastructure

/// The synchronous core: an opened input, its best audio stream and that stream's decoder.
///
/// Every call blocks; `MediaFile` runs them on its own thread, never on the cooperative pool.
final class MediaReader {
    static let outputRate = 16_000

    let location: MediaLocation
    let input: InputFormatContext
    let decoder: CodecContext
    let stream: UnsafeMutablePointer<AVStream>
    /// The audio packets: the demuxer's, or for a long MP4 track the file's own (`MP4Packets`).
    let packets: any AudioPackets
    let logger: Logger
    /// Whether packets have been read since opening: the next decode must seek or reopen first.
    var hasReadPackets = false

    var source: String { location.description }
    var streamIndex: Int32 { stream.pointee.index }

    /// Opens `location`, reading a long MP4 track's samples from the file when `sampleTables` allows
    /// and the file's tables agree with FFmpeg's reading of them, with the demuxer alone otherwise.
    static func open(
        location: MediaLocation, sourceTimeout: Duration, sampleTables: SampleTableReading?, logger: Logger
    ) throws(MediaError) -> MediaReader {
        if let sampleTables, let reader = try MediaReader(location: location, sourceTimeout: sourceTimeout, sampleTables: sampleTables, logger: logger) {
            return reader
        }
        // Never nil without sample tables.
        return try MediaReader(location: location, sourceTimeout: sourceTimeout, sampleTables: nil, logger: logger)!
    }

    /// Nil when the sample tables were used and FFmpeg read the shortened file differently from
    /// what they say; `open` then opens the file again without them.
    private init?(location: MediaLocation, sourceTimeout: Duration, sampleTables: SampleTableReading?, logger: Logger) throws(MediaError) {
        FFmpegLogLevel.configured
        self.location = location
        self.logger = logger
        let source = location.description
        if let problem = location.problem {
            throw MediaError(.unsupportedSource, problem, source: source)
        }
        try Self.checkLocalFile(location)
        var options: [String: String] = [:]
        if location.isNetwork {
            // Microseconds, for the connection and for every read: a server that never answers or
            // stalls fails the call within the timeout instead of holding a worker. FFmpeg's own
            // reconnects on network errors are off (they multiplied the wait: 163 s for a 30 s
            // timeout); the job's retry handles a source that is down. A connection closed early
            // mid-file is still resumed once.
            let microseconds = String(max(1, Int64(sourceTimeout.components.seconds) * 1_000_000 + sourceTimeout.components.attoseconds / 1_000_000_000_000))
            options["timeout"] = microseconds
            options["rw_timeout"] = microseconds
            options["reconnect"] = "1"
            options["reconnect_on_network_error"] = "0"
            options["reconnect_delay_max"] = "2"
        }
        let tables: MP4Opening?
        do {
            tables = try sampleTables.flatMap { reading throws(AVIOFailure) in
                try MP4Opening.prepare(location: location, options: options, reading: reading, logger: logger)
            }
        } catch {
            throw Self.refineOpeningError(FFmpegCall.error(for: error.code, "avio_open2", step: .opening, source: source), location: location)
        }
        do {
            if let tables {
                input = try InputFormatContext(io: tables.input, address: location.ffmpegAddress, source: source)
            } else {
                input = try InputFormatContext(address: location.ffmpegAddress, options: options, source: source)
            }
        } catch {
            if tables != nil { return nil }
            throw Self.refineOpeningError(error, location: location)
        }

        var codec: UnsafePointer<AVCodec>?
        let best = av_find_best_stream(input.pointer, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        if best == steno_averror_stream_not_found() {
            throw Self.noAudioError(input: input, source: source)
        }
        if best == steno_averror_decoder_not_found() {
            let audio = input.streams.first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
            let name = audio.map { String(cString: avcodec_get_name($0.pointee.codecpar.pointee.codec_id)) } ?? "unknown"
            throw MediaError(.unsupportedCodec, "this FFmpeg build has no decoder for the audio codec \(name)", source: source, ffmpegCall: "av_find_best_stream")
        }
        try FFmpegCall.check(best, "av_find_best_stream", step: .opening, source: source)
        guard let codec, let chosen = input.pointer.pointee.streams[Int(best)] else {
            throw MediaError(.unsupportedCodec, "no decoder for the audio stream", source: source, ffmpegCall: "av_find_best_stream")
        }
        stream = chosen
        if let tables, let head = tables.heads[chosen.pointee.id] {
            guard let mp4 = tables.packets(input: input, stream: chosen, head: head) else {
                logger.debug("FFmpeg reads the MP4 tables differently; opening the file without them", metadata: ["source": "\(source)"])
                return nil
            }
            packets = mp4
        } else {
            packets = DemuxedPackets(input: input, streamIndex: chosen.pointee.index)
        }
        for other in input.streams where other != chosen {
            // Cover art, chapter text tracks and video are never read.
            other.pointee.discard = AVDISCARD_ALL
        }

        decoder = try CodecContext(codec: codec)
        try FFmpegCall.check(avcodec_parameters_to_context(decoder.pointer, chosen.pointee.codecpar), "avcodec_parameters_to_context", step: .opening, source: source)
        // Nothing copies the stream's time base to the decoder, and frame timestamps depend on it.
        decoder.pointer.pointee.pkt_timebase = chosen.pointee.time_base
        let opened = avcodec_open2(decoder.pointer, codec, nil)
        if opened < 0 {
            var error = FFmpegCall.error(for: opened, "avcodec_open2", step: .opening, source: source)
            error.code = .unsupportedCodec
            error.reason = "the \(String(cString: codec.pointee.name)) decoder cannot read this stream"
            throw error
        }
    }

    /// Plain errors for the common local cases, before FFmpeg turns them into less specific ones.
    private static func checkLocalFile(_ location: MediaLocation) throws(MediaError) {
        guard case .file(let path) = location else { return }
        var status = stat()
        if stat(path, &status) != 0 {
            switch errno {
            case ENOENT, ENOTDIR: throw MediaError(.fileNotFound, "no such file", source: path)
            case EACCES: throw MediaError(.permissionDenied, "permission denied on a directory of the path", source: path)
            default: throw MediaError(.fileNotFound, "cannot read the file: \(String(cString: strerror(errno)))", source: path)
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw MediaError(.notMediaFile, "the path is a directory", source: path)
        case S_IFREG:
            break
        default:
            // Opening a FIFO blocks until a writer appears, and a device or socket never ends: only
            // regular files are recordings.
            let kind = switch status.st_mode & S_IFMT {
            case S_IFIFO: "a named pipe (FIFO)"
            case S_IFSOCK: "a socket"
            case S_IFCHR, S_IFBLK: "a device"
            default: "not a regular file"
            }
            throw MediaError(.notMediaFile, "the path is \(kind), not a recording file: copy the recording to a file first", source: path)
        }
        if access(path, R_OK) != 0 {
            throw MediaError(.permissionDenied, "permission denied: the file is not readable by this user", source: path)
        }
        if (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0 {
            throw MediaError(.emptyFile, "the file is empty (0 bytes)", source: path)
        }
    }

    private static func refineOpeningError(_ error: MediaError, location: MediaLocation) -> MediaError {
        var error = error
        if !location.isNetwork, error.code == .truncated || error.code == .corrupt {
            error.code = .notMediaFile
            error.reason = "the data is not in a media format FFmpeg recognises"
        }
        return error
    }

    private static func noAudioError(input: InputFormatContext, source: String) -> MediaError {
        let kinds = input.streams.map { stream -> String in
            let parameters = stream.pointee.codecpar.pointee
            let type = av_get_media_type_string(parameters.codec_type).map { String(cString: $0) } ?? "unknown"
            return "\(type) (\(String(cString: avcodec_get_name(parameters.codec_id))))"
        }
        if kinds.isEmpty {
            return MediaError(.notMediaFile, "FFmpeg found no streams in the data", source: source, ffmpegCall: "av_find_best_stream")
        }
        return MediaError(.noAudioStream, "no audio stream: the file holds only \(kinds.joined(separator: ", "))", source: source, ffmpegCall: "av_find_best_stream")
    }
}
