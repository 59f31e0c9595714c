import ArgumentParser
import Foundation
import StenoCore
import StenoObjectStore
import StenoPostgres
import StenoStore

extension Steno {
    struct Enqueue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue recordings for transcription: files, directories, quoted globs or http(s) URLs.",
            discussion: HelpText.withExamples("""
                Every source is checked before anything is stored: a file must exist, be readable and
                not empty, and lie under the media root (--media-root or STENO_MEDIA_ROOT) when one
                is set, because workers read it where it lies. A directory contributes its media
                files (by extension, recursively, hidden files skipped). If any source fails a check,
                or is already queued or in progress, nothing is enqueued.

                Prints one line per media: its id and source.

                \(StenoExitCode.help)
                """, examples: [
                "steno enqueue ~/audiobooks/moby.m4b",
                "steno enqueue /media/podcasts --priority high   # a folder, recursively",
                "steno enqueue '/media/lectures/*.mp4' --chapters 1-3 --language en",
                "steno enqueue https://example.com/ep.mp3 --webhook https://hook.example/",
                "steno enqueue ep42.mp3 --prompt 'Ahmad Chalabi, Kubernetes, KEDA, PgQueuer.'",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("Files, directories, quoted globs ('talks/*.mp3') or http(s) URLs.", valueName: "path-or-url"))
        var sources: [String]

        @Option(help: "Title; only with a single source (default: none, lists show the file name).")
        var title: String?

        @Option(help: ArgumentHelp("Spoken language: an ISO 639 code such as en or de; auto (the default) settles one language for the media from the first answers; multi lets each chunk keep its own.", valueName: "code"))
        var language: String?

        @Flag(help: "Translate into English (the backend's /v1/audio/translations) instead of transcribing; --language then names the language spoken.")
        var translate = false

        @Option(help: ArgumentHelp("Transcription model, such as whisper-1 (default: the worker's).", valueName: "name"))
        var model: String?

        @Option(help: ArgumentHelp(
            "Names and vocabulary the backend should expect, sent with every chunk (up to \(NewMedia.longestPrompt) characters).",
            valueName: "text"))
        var prompt: String?

        @Option(help: ArgumentHelp("high, medium or low.", valueName: "priority"))
        var priority: String = "low"

        @Option(help: ArgumentHelp("Chapters to transcribe: all, first, or numbers and ranges such as 1,3-5.", valueName: "selection"))
        var chapters: String = "all"

        @Option(help: ArgumentHelp("http(s) URL that is POSTed when each media finishes.", valueName: "url"))
        var webhook: String?

        @Option(help: ArgumentHelp(
            "Who said what: auto (found by itself, the default), off, the number of speakers, or a range such as 2-4.",
            valueName: "n"))
        var speakers: String?

        @Option(help: ArgumentHelp("Directory every source must be under (default: STENO_MEDIA_ROOT).", valueName: "dir"))
        var mediaRoot: String?

        @Option(help: ArgumentHelp(
            "The tenant the media belong to: API keys of that tenant see them (default: default).", valueName: "name"))
        var tenant: String = NewMedia.defaultTenant

        @Flag(help: "Enqueue sources even when they are already queued or in progress.")
        var force = false

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            if sources.isEmpty {
                throw ValidationError("name at least one file, directory, glob or URL to enqueue")
            }
            // An unset shell variable (`steno enqueue "$BOOK"`) must not enqueue the current directory.
            if let blank = sources.firstIndex(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) {
                throw ValidationError("source \(blank + 1) is empty: name a file, directory, glob or URL (is a shell variable unset?)")
            }
        }

        func run() async throws {
            try await CLIFailure.reporting {
                let requests = try await validatedRequests()
                let enqueued = try await database.withAdminStore { try await $0.enqueue(requests, allowDuplicates: force) }
                if json {
                    try JSONOutput.print(enqueued)
                    return
                }
                for media in enqueued {
                    print("media \(media.mediaID)  \(TerminalText.safe(media.source))")
                }
                print("Enqueued \(enqueued.count) recording\(enqueued.count == 1 ? "" : "s"). Follow with: steno wait \(enqueued.map { String($0.mediaID) }.joined(separator: " "))")
            }
        }

        private func validatedRequests() async throws -> [NewMedia] {
            let options = MediaOptions(
                title: title, language: language, model: model, prompt: prompt, priority: priority, chapters: chapters,
                webhook: webhook, speakers: speakers, translate: translate ? "true" : nil)
            // Checked once, before the sources, so that a bad flag is reported even when a source is
            // bad too; each source then gets the same checked settings.
            let settings: NewMedia
            do {
                settings = try options.validated(source: "", tenant: tenant)
            } catch {
                throw AdminError(.invalidInput, "--\(error.field) \(error.problem)", hint: error.hint)
            }
            let root = mediaRoot ?? ProcessInfo.processInfo.environment["STENO_MEDIA_ROOT"].flatMap { $0.isEmpty ? nil : $0 }
            let objects: ObjectStore?
            do {
                objects = try ObjectStoreConfiguration.fromEnvironment().map { ObjectStore($0) }
            } catch {
                throw AdminError(.invalidInput, "\(error)", hint: "nothing was enqueued")
            }
            var resolution = MediaSourceResolver(mediaRoot: root, objectBucket: objects?.bucket).resolve(sources)
            // Each object as the store holds it now: a missing one is refused here, and the size and
            // entity tag recorded are what every read checks (`SourceObject`).
            var sourceObjects: [String: SourceObject] = [:]
            if let objects {
                for source in resolution.sources {
                    guard let key = try? objects.key(ofSource: source) else { continue }
                    do {
                        if let found = try await objects.head(key) {
                            sourceObjects[source] = found
                        } else {
                            resolution.problems.append("\(source): no such object in the store")
                        }
                    } catch {
                        resolution.problems.append("\(source): the object store cannot be asked for it: \(error)")
                    }
                }
            }
            if !resolution.problems.isEmpty {
                for problem in resolution.problems {
                    CLIFailure.printError("cannot enqueue \(problem)")
                }
                throw AdminError(
                    .invalidInput, "\(resolution.problems.count) source\(resolution.problems.count == 1 ? "" : "s") cannot be enqueued",
                    hint: "nothing was enqueued")
            }
            if title != nil, resolution.sources.count > 1 {
                throw AdminError(.invalidInput, "--title names one recording, but \(resolution.sources.count) sources were given")
            }
            if resolution.skippedFiles > 0 {
                CLIFailure.printError("note: skipped \(resolution.skippedFiles) file(s) in directories that are not media by extension")
            }
            return resolution.sources.map { source in
                var media = settings
                media.source = source
                media.sourceObject = sourceObjects[source]
                return media
            }
        }
    }
}
