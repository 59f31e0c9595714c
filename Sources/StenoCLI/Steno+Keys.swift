import ArgumentParser
import StenoCore
import StenoStore

extension Steno {
    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make, list and revoke the API keys steno-api accepts.",
            discussion: """
                A key has a scope (read: list and fetch; submit: also add media; admin: also cancel,
                retry, focus and delete, read its tenant's share, budgets and use, and read the
                fleet's workers and report; operate: also read and change every tenant's share, cap
                and budgets) and a tenant: it sees and adds only that tenant's media. Only an operate
                key reaches other tenants, whatever its own tenant is called. The database keeps each key's SHA-256 only; the
                key itself is printed once, by `steno keys create`.
                """,
            subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make a key and print it (once: it is stored only as a hash).",
                discussion: HelpText.withExamples("""
                    Prints the key on the first line alone, so that a script can take it with
                    `head -1`; the lines after it describe the key.

                    \(StenoExitCode.help)
                    """, examples: [
                    "steno keys create --scope submit --tenant acme --name 'acme uploader'",
                    "steno keys create --scope admin --tenant acme",
                    "steno keys create --scope operate --name 'fleet dashboard'",
                    "steno keys create --scope read --json   # the key under \"key\"",
                ]))

            @OptionGroup var database: DatabaseOptions

            @Option(help: ArgumentHelp("read, submit, admin or operate.", valueName: "scope"))
            var scope: String

            @Option(help: ArgumentHelp("The tenant whose media the key sees and adds (default: default, the CLI's).", valueName: "name"))
            var tenant: String = NewMedia.defaultTenant

            @Option(help: ArgumentHelp("A note on who holds the key.", valueName: "text"))
            var name: String?

            @Flag(help: "Print JSON for scripts (the key under \"key\").")
            var json = false

            func run() async throws {
                try await CLIFailure.reporting {
                    guard let scope = APIScope(rawValue: scope) else {
                        throw AdminError(.invalidInput, "--scope must be read, submit, admin or operate, not \(scope)")
                    }
                    let (token, key) = try await database.withAdminStore { store in
                        try await KeyStore(client: store.client).create(scope: scope, tenant: tenant, name: name)
                    }
                    if json {
                        struct Created: Encodable { var key: String; var apiKey: APIKey }
                        try JSONOutput.print(Created(key: token.secret, apiKey: key))
                        return
                    }
                    print(token.secret)
                    print("key \(key.id) (\(key.prefix)…): scope \(key.scope.rawValue), tenant \(TerminalText.safe(key.tenant))")
                    print("Keep it now: it is stored only as a hash. Send it as `Authorization: Bearer <key>`.")
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the keys by id and prefix, with scope, tenant and when each was last used.",
                discussion: HelpText.withExamples("""
                    "last used" is brought up to date about once a minute by each steno-api.

                    \(StenoExitCode.help)
                    """, examples: ["steno keys list", "steno keys list --active --json"]))

            @OptionGroup var database: DatabaseOptions

            @Flag(help: "Leave out revoked keys.")
            var active = false

            @Flag(help: "Print JSON for scripts.")
            var json = false

            func run() async throws {
                try await CLIFailure.reporting {
                    let keys = try await database.withAdminStore { try await KeyStore(client: $0.client).list(activeOnly: active) }
                    if json {
                        try JSONOutput.print(keys)
                        return
                    }
                    guard !keys.isEmpty else {
                        print("No API keys. Make one with: steno keys create --scope submit")
                        return
                    }
                    var table = TextTable(["id", "prefix", "scope", "tenant", "name", "created", "last used", "revoked"], rightAligned: [0])
                    for key in keys {
                        table.add([
                            String(key.id), key.prefix + "…", key.scope.rawValue, key.tenant, HumanFormat.truncate(key.name ?? "-", to: 30),
                            HumanFormat.timestamp(key.createdAt), key.lastUsedAt.map { HumanFormat.timestamp($0) } ?? "never",
                            key.revokedAt.map { HumanFormat.timestamp($0) } ?? "",
                        ])
                    }
                    print(table.render())
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Revoke a key by id or prefix: steno-api refuses it within seconds.",
                discussion: HelpText.withExamples("""
                    Each steno-api trusts a key it has looked up for 5 seconds, so a revoked key
                    stops working within that time. Revoking a revoked key changes nothing.

                    \(StenoExitCode.help)
                    """, examples: ["steno keys revoke 3", "steno keys revoke stk_Ab12Cd34"]))

            @OptionGroup var database: DatabaseOptions

            @Argument(help: ArgumentHelp("The key's id or prefix, as `steno keys list` shows them.", valueName: "id-or-prefix"))
            var key: String

            func run() async throws {
                try await CLIFailure.reporting {
                    let revoked = try await database.withAdminStore { try await KeyStore(client: $0.client).revoke(key) }
                    print("revoked key \(revoked.id) (\(revoked.prefix)…), tenant \(TerminalText.safe(revoked.tenant))")
                }
            }
        }
    }
}
