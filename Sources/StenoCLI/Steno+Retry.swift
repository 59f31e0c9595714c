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
                "steno retry 12 --language de",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("Media ids.", valueName: "media"))
        var media: [Int64] = []

        @Flag(help: "Retry every media that failed.")
        var allFailed = false

        @Option(help: ArgumentHelp(
            "Correct the language of media that succeeded and transcribe them again in it: a code such as de, auto or multi.",
            valueName: "code"))
        var language: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            guard media.isEmpty != !allFailed else {
                throw ValidationError("name media ids or pass --all-failed, not both and not neither")
            }
            if language != nil, allFailed {
                throw ValidationError("--language corrects the media named; it does not go with --all-failed")
            }
            try MediaIDs.validate(media)
        }

        func run() async throws {
            if let language {
                try await correctLanguage(language)
                return
            }
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
    
        private static func checked(language: String) throws -> NewMedia {
            do {
                return try MediaOptions(language: language).validated(source: "")
            } catch {
                throw AdminError(.invalidInput, "--\(error.field) \(error.problem)", hint: error.hint)
            }
        }

        /// `--language`: each media takes the language and is transcribed again in it.
        private func correctLanguage(_ language: String) async throws {
            try await CLIFailure.reporting {
                let checked = try Self.checked(language: language)
                let outcomes = try await database.withAdminStore { store in
                    try await store.requireMedia(media)
                    var outcomes: [AdminStore.LanguageCorrection] = []
                    for id in media {
                        outcomes.append(try await store.transcribeAgain(mediaID: id, language: checked.language, multilingual: checked.multilingual))
                    }
                    return outcomes
                }
                if json {
                    try JSONOutput.print(outcomes)
                    return
                }
                for outcome in outcomes {
                    let named = outcome.multilingual ? "multi" : outcome.language ?? "auto"
                    print("media \(outcome.mediaID): language \(named); transcribing \(outcome.requeuedChunks) chunk(s) again; media is \(outcome.mediaState.rawValue).")
                }
            }
        }
    }
}
