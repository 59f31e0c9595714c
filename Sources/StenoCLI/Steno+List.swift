import ArgumentParser
import Foundation
import StenoCore
import StenoPostgres
import StenoStore

extension Steno {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List media, newest first, with filters and paging.",
            discussion: HelpText.withExamples("""
                Page with --limit and --offset, or (stable while media are added) with --after: pass
                the last id of a page to get the next one; the JSON output names it as next_after.

                \(StenoExitCode.help)
                """, examples: [
                "steno list",
                "steno list --state failed --since 7d",
                "steno list --state active --json",
                "steno list --after 120                      # the next page",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp(
            "Only media in these states, comma-separated: queued, probing, transcribing, succeeded, failed, cancelled, or active (the first three).",
            valueName: "states"))
        var state: String?

        @Option(help: ArgumentHelp("Only media enqueued since then: \(SinceParser.help).", valueName: "when"))
        var since: String?

        @Option(help: "At most this many media (1 to 1000).")
        var limit: String = "50"

        @Option(help: "Skip this many media first.")
        var offset: String = "0"

        @Option(help: ArgumentHelp("Continue after this media id (the last id of the previous page).", valueName: "id"))
        var after: Int64?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            _ = try limitCount
            _ = try offsetCount
            if let after { try MediaIDs.validate([after]) }
        }

        private var limitCount: Int { get throws { try FlagValue.integer(limit, "--limit", in: 1...1000) } }
        private var offsetCount: Int { get throws { try FlagValue.integer(offset, "--offset", in: 0...100_000_000) } }

        private struct Page: Encodable {
            var media: [MediaProgress]
            var nextAfter: Int64?
        }

        func run() async throws {
            let (limit, offset) = (try limitCount, try offsetCount)
            try await CLIFailure.reporting {
                let filter = AdminStore.MediaFilter(
                    states: try parsedStates(), createdSince: try parsedSince(), beforeID: after, limit: limit, offset: offset)
                let media = try await database.withAdminStore { try await $0.list(filter) }
                let nextAfter = media.count == limit ? media.last?.mediaID : nil
                if json {
                    try JSONOutput.print(Page(media: media, nextAfter: nextAfter))
                    return
                }
                if media.isEmpty {
                    print("No media match.")
                    return
                }
                print(MediaTable.render(media))
                if let nextAfter {
                    print("More: steno list --after \(nextAfter)" + (state.map { " --state \($0)" } ?? "") + (since.map { " --since \($0)" } ?? ""))
                }
            }
        }

        private func parsedStates() throws -> [MediaState]? {
            guard let state else { return nil }
            var states: [MediaState] = []
            for name in state.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
                if name == "active" {
                    states += MediaState.active
                } else if let parsed = MediaState(rawValue: name) {
                    states.append(parsed)
                } else {
                    throw AdminError(
                        .invalidInput,
                        "--state \(name) is not a media state; use \(MediaState.allCases.map(\.rawValue).joined(separator: ", ")) or active")
                }
            }
            return states
        }

        private func parsedSince() throws -> Date? {
            guard let since else { return nil }
            guard let date = SinceParser.parse(since, now: Date()) else {
                throw AdminError(.invalidInput, "--since \(since) is neither a span nor a date; use \(SinceParser.help)")
            }
            return date
        }
    }
}
