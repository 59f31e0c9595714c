import ArgumentParser
import StenoCore
import StenoPostgres
import StenoStore

extension Steno {
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resume failed or cancelled media, keeping every chunk that already succeeded.",
            discussion: HelpText.withExamples("""
                The failed and cancelled jobs of each media go back to the queue with a fresh budget
                of attempts; their chunks, chapters and the media become active again. Chunks that
                succeeded are not transcribed again.

                \(StenoExitCode.help)
                """, examples: [
                "steno retry 12",
                "steno retry --all-failed",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("Media ids.", valueName: "media"))
        var media: [Int64] = []

        @Flag(help: "Retry every media that failed.")
        var allFailed = false

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            guard media.isEmpty != !allFailed else {
                throw ValidationError("name media ids or pass --all-failed, not both and not neither")
            }
            try MediaIDs.validate(media)
        }

        func run() async throws {
            try await CLIFailure.reporting {
                let outcomes = try await database.withAdminStore { store in
                    let ids = allFailed ? try await store.failedMediaIDs() : media
                    try await store.requireMedia(ids)
                    var outcomes: [AdminStore.RetryOutcome] = []
                    for id in ids {
                        outcomes.append(try await store.retry(mediaID: id))
                    }
                    return outcomes
                }
                if json {
                    try JSONOutput.print(outcomes)
                    return
                }
                if outcomes.isEmpty {
                    print("No media failed; nothing to retry.")
                }
                for outcome in outcomes {
                    if outcome.requeuedJobs == 0 {
                        print("media \(outcome.mediaID): nothing failed or cancelled to retry (media \(outcome.mediaState.rawValue)).")
                    } else {
                        print(
                            "media \(outcome.mediaID): requeued \(outcome.requeuedJobs) job(s), \(outcome.requeuedChunks) chunk(s); "
                                + "media is \(outcome.mediaState.rawValue).")
                    }
                }
            }
        }
    }
}
