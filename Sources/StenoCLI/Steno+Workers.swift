import ArgumentParser
import StenoCore
import StenoInfrastructure
import StenoStore

extension Steno {
    struct Workers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List live workers: version, jobs in flight, last heartbeat, paused backends, rate limits.",
            discussion: HelpText.withExamples("""
                A worker is live when it has not stopped and sent a heartbeat within --stale-after
                seconds. "jobs" counts the leases it holds in the queue now; "reported" is what it
                last said itself.

                Backends with a fleet-wide rate limit (STENO_BACKEND_MAX_REQUESTS_PER_MINUTE,
                STENO_BACKEND_MAX_AUDIO_SECONDS_PER_HOUR) are listed below the workers: the limits,
                what is free now, and how many requests went through or had to wait (--json keeps
                its list of workers; scripts read limits from the backend_rate_limits table).

                \(StenoExitCode.help)
                """, examples: [
                "steno workers",
                "steno workers --all --json",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "Also list stopped workers and those not heard from lately.")
        var all = false

        @Option(help: ArgumentHelp("Seconds without a heartbeat after which a worker counts as gone.", valueName: "seconds"))
        var staleAfter: String = "60"

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func validate() throws {
            _ = try staleSeconds
        }

        /// Up to a year.
        private var staleSeconds: Double { get throws { try FlagValue.seconds(staleAfter, "--stale-after", in: 0.001...31_536_000) } }

        private struct Listed: Encodable {
            var worker: WorkerStatus
            var live: Bool

            func encode(to encoder: any Encoder) throws {
                try worker.encode(to: encoder)
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(live, forKey: .live)
            }

            private enum Key: String, CodingKey { case live }
        }

        private func printRateLimits(_ limits: [RateLimitStatus]) {
            guard !limits.isEmpty else { return }
            var table = TextTable(["backend", "fleet rate limit", "free now", "granted", "waited"], rightAligned: [3, 4])
            for status in limits {
                var free: [String] = []
                if let requests = status.requestsFree { free.append("\(Int(requests.rounded(.down))) requests") }
                if let audio = status.audioSecondsFree { free.append("\(Int(audio.rounded(.down))) audio s") }
                table.add([status.backend, status.limit.summary, free.joined(separator: ", "), String(status.granted), String(status.waited)])
            }
            print("")
            print(table.render())
        }

        func run() async throws {
            let staleAfter = try staleSeconds
            try await CLIFailure.reporting {
                let (workers, limits) = try await database.withAdminStore { store in
                    (try await store.workers(), try await store.rateLimits())
                }
                let shown = workers.filter { all || $0.isLive(staleAfter: staleAfter) }
                if json {
                    try JSONOutput.print(shown.map { Listed(worker: $0, live: $0.isLive(staleAfter: staleAfter)) })
                    return
                }
                defer { printRateLimits(limits) }
                guard !shown.isEmpty else {
                    let gone = workers.count - shown.count
                    print("No live workers." + (gone > 0 ? " \(gone) stopped or silent; --all lists them." : ""))
                    return
                }
                var table = TextTable(["worker", "host", "version", "status", "jobs", "reported", "heartbeat", "paused backends"], rightAligned: [4, 5])
                for worker in shown {
                    let paused = worker.pausedBackends.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
                    let status = worker.isLive(staleAfter: staleAfter) || worker.status == .stopped
                        ? worker.status.rawValue : "\(worker.status.rawValue), silent"
                    table.add([
                        worker.id, "\(worker.hostname):\(worker.pid)", worker.version, status, String(worker.runningJobs),
                        String(worker.jobsInFlight), HumanFormat.age(seconds: worker.heartbeatAgeSeconds), paused.isEmpty ? "-" : paused,
                    ])
                }
                print(table.render())
            }
        }
    }
}
