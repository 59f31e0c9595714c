import Foundation
import StenoCore
import Testing

/// What the ffprobe command line reads from a file, turned into Steno's types with the same
/// exact arithmetic, as the reference the library is compared with.
struct FFprobeReference {
    var declaredChapters: [Chapter]
    var formatDuration: MediaTime?
    var streams: [[String: Any]]

    init(path: String) throws {
        let result = try Fixtures.run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_chapters", "-show_format", "-show_streams", path])
        try #require(result.status == 0, "ffprobe failed on \(path)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        streams = json["streams"] as? [[String: Any]] ?? []
        let format = json["format"] as? [String: Any] ?? [:]
        formatDuration = (format["duration"] as? String).flatMap(MediaTime.init(decimalSeconds:))
        declaredChapters = try (json["chapters"] as? [[String: Any]] ?? []).enumerated().map { index, chapter in
            let timeBase = try Self.timeBase(try #require(chapter["time_base"] as? String))
            let start = try #require(chapter["start"] as? Int)
            let end = try #require(chapter["end"] as? Int)
            let title = (chapter["tags"] as? [String: Any])?["title"] as? String
            return Chapter(index: index, title: title,
                           start: MediaTime(value: Int64(start), timeBase: timeBase.0, timeBase.1),
                           end: MediaTime(value: Int64(end), timeBase: timeBase.0, timeBase.1))
        }
    }

    /// The duration rule Steno documents: the audio stream's own, else the container's.
    func duration(ofStream index: Int) throws -> MediaTime? {
        let stream = try #require(streams.first { $0["index"] as? Int == index })
        if let ticks = (stream["duration_ts"] as? Int), ticks > 0, let timeBase = stream["time_base"] as? String {
            let (numerator, denominator) = try Self.timeBase(timeBase)
            return MediaTime(value: Int64(ticks), timeBase: numerator, denominator)
        }
        return formatDuration
    }

    func codec(ofStream index: Int) -> String? {
        streams.first { $0["index"] as? Int == index }?["codec_name"] as? String
    }

    private static func timeBase(_ text: String) throws -> (Int64, Int64) {
        let parts = text.split(separator: "/").compactMap { Int64($0) }
        try #require(parts.count == 2 && parts[0] > 0 && parts[1] > 0, "bad time base \(text)")
        return (parts[0], parts[1])
    }
}
