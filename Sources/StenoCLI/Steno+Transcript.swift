import ArgumentParser
import Foundation
import StenoCore
import StenoPostgres
import StenoStore

extension Steno {
    struct TranscriptCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "transcript",
            abstract: "Export a transcript as text, SRT, WebVTT, JSON or a podcast transcript.",
            discussion: HelpText.withExamples("""
                Times are on the recording's own clock, also for a single chapter. Subtitles hold
                at most 2 lines of 42 characters per cue; long sentences are split at word times
                when the backend gave them, else in proportion to their length. Chapters not
                transcribed yet are left out of subtitles and marked in text (with a note on
                stderr).

                --format podcast writes the JSON of the Podcasting 2.0 <podcast:transcript>
                tag (type="application/json"): one segment per sentence, with startTime and
                endTime in seconds from the start of the recording.

                Without --format, the format follows the extension of -o, else txt.

                \(StenoExitCode.help)
                """, examples: [
                "steno transcript 12                       # text on standard output",
                "steno transcript 12 -o moby.srt            # the format from the extension",
                "steno transcript 12 --chapter 3 --format vtt",
                "steno transcript 12 --format podcast -o episode-12.transcript.json",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("A media id.", valueName: "media"))
        var media: Int64

        @Option(help: ArgumentHelp("Only this chapter, numbered from 1.", valueName: "n"))
        var chapter: String?

        @Option(help: ArgumentHelp("txt, srt, vtt, json or podcast.", valueName: "format"))
        var format: String?

        @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        @Flag(help: "The same as --format json.")
        var json = false

        func validate() throws {
            try MediaIDs.validate([media])
            _ = try chapterNumber
            if let format, TranscriptFormat(rawValue: format.lowercased()) == nil {
                throw ValidationError("--format must be txt, srt, vtt, json or podcast, not \(format)")
            }
        }

        private var resolvedFormat: TranscriptFormat {
            if json { return .json }
            if let format, let parsed = TranscriptFormat(rawValue: format.lowercased()) { return parsed }
            if let output, let fromExtension = TranscriptFormat(fileExtension: (output as NSString).pathExtension) { return fromExtension }
            return .txt
        }

        private var chapterNumber: Int? { get throws { try chapter.map { try FlagValue.chapter($0) } } }

        func run() async throws {
            let chapter = try chapterNumber
            try await CLIFailure.reporting {
                try await database.withAdminStore { store in
                    let source = try await store.transcriptSource(mediaID: media, chapter: chapter)
                    let missing = source.untranscribedChapters
                    if !missing.isEmpty {
                        CLIFailure.printError(
                            "note: \(missing.count) of \(source.outline.chapters.count) chapter(s) have no transcript yet: "
                                + missing.map { "\($0.number) (\($0.state))" }.joined(separator: ", "))
                    }
                    // Written a batch of segments at a time, as the store reads them.
                    guard let output else {
                        // Checked with all other output when the command ends (`Steno.finishStandardOutput`).
                        try await store.exportTranscript(source, format: resolvedFormat) { print($0, terminator: "") }
                        return
                    }
                    try await OutputFile.stream(to: output) { write in
                        try await store.exportTranscript(source, format: resolvedFormat) { try write(Data($0.utf8)) }
                    }
                    CLIFailure.printError(
                        "wrote \(output) (\(resolvedFormat.rawValue), \(source.outline.chapters.count - missing.count) chapter(s))")
                }
            }
        }
    }
}
