import ArgumentParser
import StenoPostgres
import StenoStore

extension Steno {
    struct Focus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say which chapter a listener is on: its jobs run first, the next chapter's after.",
            discussion: HelpText.withExamples("""
                Chapter N's queued and running jobs go to high priority, chapter N+1's to medium, the
                other chapters' back to the media's own priority. The focus is stored on the media,
                so jobs created later (chunks of a chapter planned afterwards, a merge) follow it too;
                before the media is probed, it applies as soon as its chapters are known.

                \(StenoExitCode.help)
                """, examples: [
                "steno focus 12 --chapter 7                 # chapter 7 first, then 8",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("A media id.", valueName: "media"))
        var media: Int64

        @Option(help: ArgumentHelp("The chapter being listened to, from 1.", valueName: "n"))
        var chapter: String

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            try MediaIDs.validate([media])
            _ = try FlagValue.chapter(chapter)
        }

        func run() async throws {
            let chapter = try FlagValue.chapter(chapter)
            try await CLIFailure.reporting {
                let outcome = try await database.withAdminStore { try await $0.focus(mediaID: media, chapter: chapter) }
                if json {
                    try JSONOutput.print(outcome)
                } else if outcome.chaptersKnown {
                    print(
                        "media \(media): listening at chapter \(chapter); \(outcome.highJobs) job(s) now high priority, "
                            + "\(outcome.mediumJobs) medium, \(outcome.lowJobs) low. Jobs created later follow the focus.")
                } else {
                    print("media \(media) is not probed yet; chapter \(chapter) runs first once its chapters are known.")
                }
            }
        }
    }
}
