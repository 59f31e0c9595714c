import ArgumentParser
import Foundation
import Logging
import StenoTranscription

extension Steno {
    struct Backend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Inspect the configured transcription backends.",
            subcommands: [Check.self])
    }
}

extension Steno.Backend {
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send one second of generated audio to each configured backend and report the outcome.",
            discussion: HelpText.withExamples("""
                Tests a base URL, model and key before work is enqueued. The primary backend comes \
                from STENO_BACKEND_URL, STENO_MODEL, STENO_API_KEY or STENO_API_KEY_FILE, \
                STENO_BACKEND_HEADERS, STENO_BACKEND_PATH and STENO_RESPONSE_FORMAT; the fallback from \
                the same names with STENO_FALLBACK_ in place of STENO_ (STENO_FALLBACK_BACKEND_URL, ...). \
                Each backend gets one request, without retries, so the first outcome is what you see. \
                The API key is never printed.

                Exit codes: 0 every backend answered, 1 a backend failed, 2 no usable backend configuration.
                """, examples: [
                "steno backend check            # one second of audio to each backend",
                "steno backend check --json",
            ]))

        @Option(help: ArgumentHelp("Primary backend base URL (default: STENO_BACKEND_URL).", valueName: "url"))
        var backendURL: String?

        @Option(help: ArgumentHelp("Primary backend model (default: STENO_MODEL, then whisper-1).", valueName: "name"))
        var model: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() async throws {
            var environment = ProcessInfo.processInfo.environment
            if let backendURL { environment["STENO_BACKEND_URL"] = backendURL }
            if let model { environment["STENO_MODEL"] = model }
            let outcome = await Self.check(environment: environment, json: json)
            print(outcome.output)
            if outcome.exitCode != .success { throw outcome.exitCode }
        }

        /// Checks every backend configured in `environment` and renders the reports.
        static func check(environment: [String: String], json: Bool) async -> (output: String, exitCode: ExitCode) {
            // The report is the output; the client's own warnings would only repeat it on stderr.
            var logger = Logger(label: "steno.backend-check")
            logger.logLevel = .error
            let backends: [TranscriptionClient]
            do {
                let client = try FallbackTranscriptionClient.fromEnvironment(environment, logger: logger)
                backends = [client.primary] + (client.fallback.map { [$0] } ?? [])
            } catch {
                return (json ? BackendCheckOutput.json(configurationError: error) : "error: \(error)", ExitCode(2))
            }
            var reports: [BackendCheck.Report] = []
            for backend in backends {
                var configuration = backend.configuration
                configuration.retry.maximumRetries = 0
                reports.append(await BackendCheck.run(TranscriptionClient(configuration: configuration, logger: logger)))
            }
            let output = json ? BackendCheckOutput.json(reports) : BackendCheckOutput.text(reports)
            return (output, reports.allSatisfy(\.succeeded) ? .success : ExitCode(1))
        }
    }
}
