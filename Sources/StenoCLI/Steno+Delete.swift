import ArgumentParser
import StenoPostgres
import StenoStore

extension Steno {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete media with their chapters, chunks, transcripts, jobs and history.",
            discussion: HelpText.withExamples("""
                Running jobs are told to stop first; their workers then write nothing. The source
                files are not touched here: a recording uploaded through steno-api is removed by
                steno-api's hourly sweep of its upload directory (docs/api.md).

                \(StenoExitCode.help)
                """, examples: [
                "steno delete 12",
                "steno delete 12 13 14 --json               # every id is checked first",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("Media ids.", valueName: "media"))
        var media: [Int64]

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            guard !media.isEmpty else { throw ValidationError("name at least one media id to delete") }
            try MediaIDs.validate(media)
        }

        func run() async throws {
            try await CLIFailure.reporting {
                let outcomes = try await database.withAdminStore { store in
                    try await store.requireMedia(media)
                    var outcomes: [AdminStore.DeleteOutcome] = []
                    for id in media {
                        outcomes.append(try await store.delete(mediaID: id))
                    }
                    return outcomes
                }
                if json {
                    try JSONOutput.print(outcomes)
                    return
                }
                for outcome in outcomes {
                    print(
                        "deleted media \(outcome.mediaID): \(outcome.chapters) chapter(s), \(outcome.chunks) chunk(s), "
                            + "\(outcome.segments) segment(s), \(outcome.jobs) job(s)"
                            + (outcome.flaggedRunningJobs > 0 ? "; \(outcome.flaggedRunningJobs) running job(s) told to stop" : ""))
                }
            }
        }
    }
}
