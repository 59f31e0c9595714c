import ArgumentParser
import StenoCore
import StenoObjectStore
import StenoPostgres
import StenoStore

extension Steno {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete media with their chapters, chunks, transcripts, jobs and history.",
            discussion: HelpText.withExamples("""
                Running jobs are told to stop first; their workers then write nothing. Source
                files on disk are not touched here: a recording uploaded through steno-api is
                removed by steno-api's hourly sweep of its upload directory (docs/api.md). With
                an object store (STENO_S3_*), a recording steno-api stored there is removed now;
                an object you enqueued by its own s3:// address is yours and is kept.

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
                let objects: ObjectStore?
                do {
                    objects = try ObjectStoreConfiguration.fromEnvironment().map { ObjectStore($0) }
                } catch {
                    throw AdminError(.invalidInput, "\(error)", hint: "nothing was deleted")
                }
                let (outcomes, sources) = try await database.withAdminStore { store in
                    try await store.requireMedia(media)
                    let sources = try await store.sources(of: media)
                    var outcomes: [AdminStore.DeleteOutcome] = []
                    for id in media {
                        outcomes.append(try await store.delete(mediaID: id))
                    }
                    return (outcomes, sources)
                }
                var removed: Set<Int64> = []
                if let objects {
                    for id in media {
                        guard let source = sources[id] else { continue }
                        do {
                            if try await objects.removeUpload(source: source) { removed.insert(id) }
                        } catch {
                            CLIFailure.printError("media \(id) is deleted, but its recording could not be removed from the object store: \(error)")
                        }
                    }
                }
                if json {
                    try JSONOutput.print(outcomes)
                    return
                }
                for outcome in outcomes {
                    print(
                        "deleted media \(outcome.mediaID): \(outcome.chapters) chapter(s), \(outcome.chunks) chunk(s), "
                            + "\(outcome.segments) segment(s), \(outcome.jobs) job(s)"
                            + (outcome.flaggedRunningJobs > 0 ? "; \(outcome.flaggedRunningJobs) running job(s) told to stop" : "")
                            + (removed.contains(outcome.mediaID) ? "; its recording removed from the object store" : ""))
                }
            }
        }
    }
}
