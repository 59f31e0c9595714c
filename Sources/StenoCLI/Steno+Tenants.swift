import ArgumentParser
import Foundation
import StenoCore
import StenoStore

extension Steno {
    struct Tenants: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List tenants, and set each one's share of the fleet, cap and budgets.",
            discussion: """
                Workers hand jobs out across the tenants with work ready in proportion to their
                shares (default 1 each), whatever the size of each backlog; inside a tenant, by
                priority, with its media interleaved. A cap bounds a tenant's chunk jobs in flight
                fleet-wide; a budget (per UTC day or month, in audio hours sent to the backend or
                in cost) holds its chunk jobs once reached, losing nothing: raise it and the work
                goes on. Changes take effect at the workers' next claim.
                """,
            subcommands: [List.self, Show.self, Set.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List every tenant with its share, cap, jobs and use today.",
                discussion: HelpText.withExamples(StenoExitCode.help, examples: ["steno tenants list", "steno tenants list --json"]))

            @OptionGroup var database: DatabaseOptions

            @Flag(help: "Print JSON for scripts.")
            var json = false

            func run() async throws {
                try await CLIFailure.reporting {
                    let tenants = try await database.withAdminStore { try await $0.tenants() }
                    if json {
                        try JSONOutput.print(tenants)
                        return
                    }
                    var table = TextTable(
                        ["tenant", "share", "cap", "running", "queued", "media", "paid h today", "cost today", "held"],
                        rightAligned: [1, 2, 3, 4, 5, 6, 7])
                    for tenant in tenants {
                        table.add([
                            tenant.name, Tenants.number(tenant.settings.share), tenant.settings.maxInFlight.map(String.init) ?? "-",
                            String(tenant.runningJobs), String(tenant.queuedJobs), String(tenant.media),
                            String(format: "%.2f", tenant.today.paidHours), HumanFormat.money(tenant.today.costUSD),
                            tenant.heldReason == nil ? "" : "over budget",
                        ])
                    }
                    print(table.render())
                }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show one tenant: settings, jobs, use today and this month against its budgets, and why it is held.",
                discussion: HelpText.withExamples(StenoExitCode.help, examples: ["steno tenants show acme", "steno tenants show acme --json"]))

            @OptionGroup var database: DatabaseOptions

            @Argument(help: "The tenant.")
            var name: String

            @Flag(help: "Print JSON for scripts.")
            var json = false

            func run() async throws {
                try await CLIFailure.reporting {
                    let tenant = try await database.withAdminStore { try await $0.tenants(named: name)[0] }
                    if json {
                        try JSONOutput.print(tenant)
                        return
                    }
                    print(Tenants.describe(tenant))
                }
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Set a tenant's share, cap on chunk jobs in flight, or budgets (`none` clears a cap or budget).",
                discussion: HelpText.withExamples("""
                    Makes the tenant if it has no row yet, so limits can be set before its first
                    media. Budgets count per UTC day and month; audio hours are what the backend is
                    paid for. Jobs already running when a budget is reached finish: a budget may be
                    passed by what was in flight.

                    \(StenoExitCode.help)
                    """, examples: [
                    "steno tenants set archive --share 0.5",
                    "steno tenants set acme --max-in-flight 8 --monthly-cost 250",
                    "steno tenants set acme --daily-audio-hours none",
                ]))

            @OptionGroup var database: DatabaseOptions

            @Argument(help: "The tenant.")
            var name: String

            @Option(help: ArgumentHelp("Relative weight against the other tenants with work ready (0.001 to 1000; default 1).", valueName: "n"))
            var share: Double?

            @Option(help: ArgumentHelp("At most this many chunk jobs in flight, fleet-wide, or none.", valueName: "n|none"))
            var maxInFlight: String?

            @Option(help: ArgumentHelp("Audio hours sent to the backend per UTC day, or none.", valueName: "hours|none"))
            var dailyAudioHours: String?

            @Option(help: ArgumentHelp("Audio hours sent to the backend per UTC month, or none.", valueName: "hours|none"))
            var monthlyAudioHours: String?

            @Option(help: ArgumentHelp("Cost per UTC day in US dollars, or none.", valueName: "usd|none"))
            var dailyCost: String?

            @Option(help: ArgumentHelp("Cost per UTC month in US dollars, or none.", valueName: "usd|none"))
            var monthlyCost: String?

            @Flag(help: "Print JSON for scripts.")
            var json = false

            func run() async throws {
                try await CLIFailure.reporting {
                    var change = TenantChange(share: share)
                    change.maxInFlight = try Tenants.setting(maxInFlight, option: "--max-in-flight") { Int($0) }
                    change.dailyAudioHours = try Tenants.setting(dailyAudioHours, option: "--daily-audio-hours") { Double($0) }
                    change.monthlyAudioHours = try Tenants.setting(monthlyAudioHours, option: "--monthly-audio-hours") { Double($0) }
                    change.dailyCostUSD = try Tenants.setting(dailyCost, option: "--daily-cost") { Double($0) }
                    change.monthlyCostUSD = try Tenants.setting(monthlyCost, option: "--monthly-cost") { Double($0) }
                    guard change != TenantChange() else {
                        throw AdminError(
                            .invalidInput, "nothing to set",
                            hint: "give --share, --max-in-flight, --daily-audio-hours, --monthly-audio-hours, --daily-cost or --monthly-cost")
                    }
                    let tenant = try await database.withAdminStore { store in
                        try await store.setTenant(name, change)
                        return try await store.tenants(named: name)[0]
                    }
                    if json {
                        try JSONOutput.print(tenant)
                        return
                    }
                    print(Tenants.describe(tenant))
                }
            }
        }

        static func setting<Value>(_ text: String?, option: String, parse: (String) -> Value?) throws -> TenantChange.Setting<Value> {
            guard let text else { return .keep }
            if text == "none" { return .clear }
            guard let value = parse(text) else {
                throw AdminError(.invalidInput, "\(option) \(text) is not a number; give a number, or none to clear it")
            }
            return .set(value)
        }

        static func number(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
        }

        static func describe(_ tenant: TenantOverview) -> String {
            let settings = tenant.settings
            func budget(_ hours: Double?, _ cost: Double?, used: TenantUsage) -> String {
                var parts: [String] = []
                if let hours { parts.append(String(format: "%.2f of %@ audio h", used.paidHours, number(hours))) }
                if let cost { parts.append("\(HumanFormat.money(used.costUSD)) of \(HumanFormat.money(cost))") }
                return parts.isEmpty ? "no budget (\(String(format: "%.2f", used.paidHours)) audio h, \(HumanFormat.money(used.costUSD)))" : parts.joined(separator: ", ")
            }
            var table = TextTable(["", ""])
            table.showsHeader = false
            table.add(["tenant", tenant.name])
            table.add(["share", number(settings.share)])
            table.add(["cap", settings.maxInFlight.map { "\($0) chunk jobs in flight" } ?? "none"])
            table.add(["jobs", "\(tenant.runningJobs) running (\(tenant.runningChunkJobs) chunk), \(tenant.queuedJobs) queued; \(tenant.media) media"])
            table.add(["today (\(tenant.today.day ?? ""))", budget(settings.dailyAudioHours, settings.dailyCostUSD, used: tenant.today)])
            table.add(["this month", budget(settings.monthlyAudioHours, settings.monthlyCostUSD, used: tenant.month)])
            table.add(["held", tenant.heldReason ?? "no"])
            return table.render()
        }
    }
}
