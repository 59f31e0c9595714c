import ArgumentParser
import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore

extension Steno {
    struct Wait: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait until media finish, showing their progress.",
            discussion: HelpText.withExamples("""
                Shows a progress bar per media on a terminal and a line per change otherwise (or
                only the final JSON with --json). Wakes when workers report progress (LISTEN on
                steno_media and steno_jobs) and polls every --poll-interval seconds besides, so it
                keeps working through a database restart.

                \(StenoExitCode.waitHelp)
                """, examples: [
                "steno wait 12 13",
                "steno wait 12 --timeout 3600 --plain",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("Media ids.", valueName: "media"))
        var media: [Int64]

        @Option(help: ArgumentHelp("Seconds between polls when no notification arrives.", valueName: "seconds"))
        var pollInterval: String = "5"

        @Option(help: ArgumentHelp("Give up after this many seconds (exit 7).", valueName: "seconds"))
        var timeout: String?

        @Flag(help: "Print a line per change even on a terminal.")
        var plain = false

        @Flag(help: "Print only the final state, as JSON.")
        var json = false

        func validate() throws {
            guard !media.isEmpty else { throw ValidationError("name at least one media id to wait for") }
            try MediaIDs.validate(media)
            _ = try pollSeconds
            _ = try timeoutSeconds
        }

        private var pollSeconds: Double { get throws { try FlagValue.seconds(pollInterval, "--poll-interval", in: 0.1...3600) } }
        /// Up to a year.
        private var timeoutSeconds: Double? { get throws { try timeout.map { try FlagValue.seconds($0, "--timeout", in: 0.001...31_536_000) } } }

        func run() async throws {
            let timeout = try timeoutSeconds
            try await CLIFailure.reporting {
                let ids = Array(Set(media)).sorted()
                let outcome = try await database.withAdminStore { store in
                    let initial = try await store.progress(of: ids)
                    if let missing = ids.first(where: { id in !initial.contains { $0.mediaID == id } }) {
                        throw AdminError(.notFound, "there is no media \(missing)", hint: "`steno list` shows the media and their ids")
                    }
                    return try await follow(ids, store: store, timeout: timeout)
                }
                if json {
                    try JSONOutput.print(outcome)
                }
                if outcome.timedOut {
                    CLIFailure.printError("timed out after \(timeout ?? 0) s; the media are still being worked on")
                    throw StenoExitCode.timedOut
                }
                if outcome.media.contains(where: { $0.state == .failed }) { throw StenoExitCode.mediaFailed }
                if !outcome.deleted.isEmpty || outcome.media.contains(where: { $0.state == .cancelled }) { throw StenoExitCode.mediaCancelled }
            }
        }

        private func follow(_ ids: [Int64], store: AdminStore, timeout: Double?) async throws -> WaitFollower.Outcome {
            let signal = Wakeup()
            let listening = try listen(signal: signal)
            defer { listening.cancel() }
            let display = WaitProgressDisplay(style: json ? .silent : (plain || !WaitProgressDisplay.standardOutputIsTerminal ? .lines : .bars))
            let follower = WaitFollower(
                pollInterval: .milliseconds(Int64(try pollSeconds * 1000)), timeout: timeout.map { .milliseconds(Int64($0 * 1000)) })
            return try await follower.follow(ids, wakeup: signal, progress: { try await store.progress(of: $0) }, show: { display.update($0, deleted: $1) })
        }

        /// Signals on every notification; when listening fails, polling alone carries on.
        private func listen(signal: Wakeup) throws -> Task<Void, Never> {
            let logger = Logger(label: "steno.wait")
            let listener = try PostgresListener(
                configuration: try database.configuration(), channels: [JobStore.Channel.media, JobStore.Channel.jobs], logger: logger)
            return Task {
                do {
                    for try await _ in try await listener.events() {
                        signal.wake()
                    }
                } catch {
                    logger.info("not listening for notifications; polling only", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
