import ArgumentParser
import Foundation
import StenoCore
import StenoPostgres
import StenoStore

extension Steno {
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report queue depth, throughput, time to done, failures and cost.",
            discussion: HelpText.withExamples("""
                The figures of the reporting views (steno_queue, steno_throughput,
                steno_latency, steno_failures, steno_costs, steno_tenant_usage), which a read-only steno_reporting
                user can query too, for work finished since --since: what is read follows the
                window, not the history kept. The queue shows the jobs waiting and running now
                and those that ended since --since.

                \(StenoExitCode.help)
                """, examples: [
                "steno report",
                "steno report --since 7d --json",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp("The period: \(SinceParser.help).", valueName: "when"))
        var since: String = "24h"

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() async throws {
            try await CLIFailure.reporting {
                guard let start = SinceParser.parse(since, now: Date()) else {
                    throw AdminError(.invalidInput, "--since \(since) is neither a span nor a date; use \(SinceParser.help)")
                }
                let report = try await database.withAdminStore { try await $0.report(since: start) }
                if json {
                    try JSONOutput.print(report)
                } else {
                    print(render(report))
                }
            }
        }

        private func render(_ report: OperationsReport) -> String {
            var sections: [String] = []

            var queue = TextTable(["kind", "state", "jobs", "ready", "delayed", "oldest"], rightAligned: [2, 3, 4, 5])
            for row in report.queue {
                queue.add([row.kind.rawValue, row.state.rawValue, String(row.jobs), String(row.ready), String(row.delayed), HumanFormat.duration(row.oldestAgeSeconds)])
            }
            sections.append("Queue\n" + (report.queue.isEmpty ? "  (no jobs)" : queue.render()))

            let period = "since \(HumanFormat.timestamp(report.since))"
            var throughput = TextTable(["hour", "media", "audio h", "chunks", "chunk audio h"], rightAligned: [1, 2, 3, 4])
            for row in report.throughput {
                throughput.add([
                    HumanFormat.timestamp(row.hour), String(row.mediaDone), String(format: "%.2f", row.mediaAudioHours),
                    String(row.chunksDone), String(format: "%.2f", row.chunkAudioHours),
                ])
            }
            sections.append("Throughput per hour, \(period)\n" + (report.throughput.isEmpty ? "  (nothing finished)" : throughput.render()))

            let latency = report.latency
            sections.append(
                "Enqueue to done, \(period)\n"
                    + (latency.media == 0
                        ? "  (no media finished)"
                        : "  \(latency.media) media: p50 \(HumanFormat.duration(latency.p50Seconds)), p95 \(HumanFormat.duration(latency.p95Seconds))"))

            var failures = TextTable(["class", "attempts", "final", "meaning; last message"], rightAligned: [1, 2])
            for row in report.failures {
                failures.add([
                    row.errorClass, String(row.attempts), String(row.final),
                    HumanFormat.truncate(FailureReason.describe(errorClass: row.errorClass, message: row.lastMessage) ?? "", to: 100),
                ])
            }
            sections.append("Failures by class, \(period)\n" + (report.failures.isEmpty ? "  (none)" : failures.render()))

            var costs = TextTable(["day", "model", "backend", "chunks", "audio h", "speech h", "cost"], rightAligned: [3, 4, 5, 6])
            for row in report.costs {
                costs.add([
                    row.day, row.model, row.backend, String(row.chunks), String(format: "%.2f", row.audioHours),
                    row.speechHours.map { String(format: "%.2f", $0) } ?? "-", HumanFormat.money(row.costUSD),
                ])
            }
            let total = report.costs.reduce(0) { $0 + $1.costUSD }
            sections.append(
                "Cost by day and model, \(period)\n"
                    + (report.costs.isEmpty ? "  (none)" : costs.render() + "\ntotal \(HumanFormat.money(total))"))

            var tenants = TextTable(["day", "tenant", "media", "chunks", "audio h", "paid h", "cost"], rightAligned: [2, 3, 4, 5, 6])
            for row in report.tenants {
                let use = row.usage
                tenants.add([
                    use.day ?? "", row.tenant, String(use.media), String(use.chunks), String(format: "%.2f", use.audioSeconds / 3600),
                    String(format: "%.2f", use.paidHours), HumanFormat.money(use.costUSD),
                ])
            }
            sections.append("Use by tenant and day (UTC), \(period)\n" + (report.tenants.isEmpty ? "  (none)" : tenants.render()))
            return sections.joined(separator: "\n\n")
        }
    }
}
