import CFFmpeg
import Foundation

/// FFmpeg logs to stderr on its own; Steno reports every failure through `MediaError`, so that
/// output is silenced unless `STENO_FFMPEG_LOG_LEVEL` (quiet, error, warning, info, verbose,
/// debug) asks for it while investigating a file.
enum FFmpegLogLevel {
    static let configured: Void = {
        let levels: [String: Int32] = [
            "quiet": AV_LOG_QUIET, "error": AV_LOG_ERROR, "warning": AV_LOG_WARNING,
            "info": AV_LOG_INFO, "verbose": AV_LOG_VERBOSE, "debug": AV_LOG_DEBUG,
        ]
        let requested = ProcessInfo.processInfo.environment["STENO_FFMPEG_LOG_LEVEL"]?.lowercased()
        av_log_set_level(requested.flatMap { levels[$0] } ?? AV_LOG_QUIET)
    }()
}
