import ArgumentParser
import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia

extension Steno {
    struct Probe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what Steno reads from a recording: container, audio stream, duration and chapters.",
            discussion: HelpText.withExamples("""
                Check a file or an http(s) URL before enqueueing it. Chapters are shown as Steno
                will use them: sorted, clamped to the duration, without empty or past-the-end
                marks, and covering the whole recording (a file without chapters is one chapter).
                Exits with 1 and a one-line reason when the input cannot be used.
                """, examples: [
                "steno probe book.m4b",
                "steno probe https://example.com/episode.mp3 --source-timeout 10 --json",
            ]))

        @Argument(help: ArgumentHelp("A media file path or an http(s) URL.", valueName: "file-or-url"))
        var source: String

        @Flag(help: "Print JSON for scripts.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "Seconds an http(s) source may take to connect or to send more data, 1-3600 (default: STENO_SOURCE_TIMEOUT_SECONDS, else 30).",
                valueName: "seconds"))
        var sourceTimeout: String?

        func validate() throws {
            guard !source.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ValidationError("the source is empty: name a file or an http(s) URL (is a shell variable unset?)")
            }
            if let sourceTimeout { _ = try FlagValue.seconds(sourceTimeout, "--source-timeout", in: MediaFile.sourceTimeoutRange) }
        }

        private func resolvedSourceTimeout() throws -> Duration {
            let setting = SettingText.from(
                flag: sourceTimeout, "--source-timeout", variable: MediaFile.sourceTimeoutVariable, in: ProcessInfo.processInfo.environment)
            do {
                return try SettingValue.seconds(setting, in: MediaFile.sourceTimeoutRange) ?? MediaFile.defaultSourceTimeout
            } catch {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            let location = MediaLocation(source)
            let timeout = try resolvedSourceTimeout()
            let info: MediaInfo
            do {
                info = try await MediaFile.probe(location, sourceTimeout: timeout, logger: Logger(label: "steno.probe"))
            } catch {
                throw CLIFailure.exit(for: error)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data = try encoder.encode(ProbeReport(location: location, info: info))
                print(String(decoding: data, as: UTF8.self))
            } else {
                printTable(location: location, info: info)
            }
        }

        private func printTable(location: MediaLocation, info: MediaInfo) {
            let audio = info.audio
            print("source     \(TerminalText.safe(location.description))")
            print("container  \(info.container)\(info.containerLongName.map { " (\($0))" } ?? "")")
            if let title = info.title { print("title      \(TerminalText.safe(title))") }
            var stream = "#\(audio.index) \(audio.codec), \(audio.sampleRate) Hz, \(audio.channels) channel\(audio.channels == 1 ? "" : "s")"
            if let layout = audio.channelLayout { stream += " (\(layout))" }
            if let bitRate = audio.bitRate { stream += ", \(bitRate / 1000) kbit/s" }
            print("audio      \(stream)")
            if info.hasVideo { print("video      yes (ignored)") }
            print("duration   \(info.duration.map { "\($0.clockDescription) (\($0) s)" } ?? "unknown")")
            let usable = ChapterNormalizer.usableMarkCount(info.declaredChapters, duration: info.duration)
            let dropped = info.declaredChapters.count - usable
            var heading = "chapters   \(info.chapters.count)"
            if info.declaredChapters.isEmpty {
                heading += " (none declared: the whole recording)"
            } else if usable == 0 {
                heading += " (\(info.declaredChapters.count) declared, all empty or past the end: the whole recording)"
            } else if dropped > 0 {
                heading += " (\(info.declaredChapters.count) declared; \(dropped) empty, overlapped or past the end dropped)"
            }
            print(heading)
            for chapter in info.chapters {
                let number = String(chapter.index + 1).leftPadded(to: 4)
                print("  \(number)  \(chapter.start.clockDescription) - \(chapter.end.clockDescription)  \(chapter.title.map(TerminalText.safe) ?? "(untitled)")")
            }
        }
    }
}

/// The `--json` shape of `steno probe`: times in seconds, with the exact fraction alongside.
struct ProbeReport: Encodable {
    struct Time: Encodable {
        let seconds: Double
        let exact: String

        init(_ time: MediaTime) {
            seconds = time.seconds
            exact = "\(time.numerator)/\(time.denominator)"
        }
    }

    struct ChapterEntry: Encodable {
        let index: Int
        let title: String?
        let start: Time
        let end: Time
    }

    let source: String
    let container: String
    let containerLongName: String?
    let title: String?
    let audio: AudioStreamInfo
    let hasVideo: Bool
    let duration: Time?
    let declaredChapterCount: Int
    let chapters: [ChapterEntry]

    init(location: MediaLocation, info: MediaInfo) {
        source = location.description
        container = info.container
        containerLongName = info.containerLongName
        title = info.title
        audio = info.audio
        hasVideo = info.hasVideo
        duration = info.duration.map(Time.init)
        declaredChapterCount = info.declaredChapters.count
        chapters = info.chapters.map { ChapterEntry(index: $0.index, title: $0.title, start: Time($0.start), end: Time($0.end)) }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
