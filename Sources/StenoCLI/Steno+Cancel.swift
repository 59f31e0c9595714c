import ArgumentParser
import StenoCore
import StenoPostgres
import StenoStore

extension Steno {
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a media, or one chapter of it.",
            discussion: HelpText.withExamples("""
                Queued jobs are cancelled at once; running ones are flagged and their workers stop
                them within moments (they are told by NOTIFY). Chunks that already succeeded are
                kept: `steno retry` resumes from them. Cancelling what has already finished changes
                nothing.

                \(StenoExitCode.help)
                """, examples: [
                "steno cancel 12                          # the whole media",
                "steno cancel 12 --chapter 3                # only chapter 3",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("A media id.", valueName: "media"))
        var media: Int64

        @Option(help: ArgumentHelp("Cancel only this chapter, numbered from 1.", valueName: "n"))
        var chapter: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            try MediaIDs.validate([media])
            _ = try chapterNumber
        }

        private var chapterNumber: Int? { get throws { try chapter.map { try FlagValue.chapter($0) } } }

        func run() async throws {
            let chapter = try chapterNumber
            try await CLIFailure.reporting {
                let outcome = try await database.withAdminStore { try await $0.cancel(mediaID: media, chapter: chapter) }
                if json {
                    try JSONOutput.print(outcome)
                    return
                }
                let target = chapter.map { "chapter \($0) of media \(media)" } ?? "media \(media)"
                if outcome.alreadyFinished {
                    print("\(target) had already finished (media \(outcome.mediaState.rawValue)); nothing to cancel.")
                } else {
                    print(
                        "cancelled \(target): \(outcome.cancelledJobs) queued job(s) cancelled, "
                            + "\(outcome.flaggedRunningJobs) running job(s) told to stop; media is \(outcome.mediaState.rawValue).")
                }
            }
        }
    }
}
