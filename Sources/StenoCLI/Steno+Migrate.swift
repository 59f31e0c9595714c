import ArgumentParser
import Foundation
import Logging
import StenoPostgres

extension Steno {
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply pending database migrations, or list them with --status.",
            discussion: HelpText.withExamples("""
                Safe to run from many processes at once: they take an advisory lock, and only one
                applies each migration. Each migration runs in its own transaction.

                \(StenoExitCode.help)
                """, examples: [
                "steno migrate                            # apply what is pending",
                "steno migrate --status",
            ]))

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "List applied and pending migrations without changing anything.")
        var status = false

        @Option(help: ArgumentHelp("Directory of NNNN_name.sql files (default: STENO_MIGRATIONS_DIR, ./migrations).", valueName: "dir"))
        var migrations: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() async throws {
            try await CLIFailure.reporting {
                let directory = try Migration.locateDirectory(explicit: migrations)
                let runner = MigrationRunner(migrations: try Migration.load(from: directory), logger: Logger(label: "steno.migrate"))
                let connection = try await PostgresConnection.connect(configuration: try database.configuration().direct)
                do {
                    if status {
                        try printStatus(try await runner.status(on: connection))
                    } else {
                        let applied = try await runner.migrate(on: connection)
                        try printApplied(applied, known: runner.migrations.count)
                    }
                } catch {
                    await connection.close()
                    throw error
                }
                await connection.close()
            }
        }

        private struct AppliedReport: Encodable {
            struct Entry: Encodable {
                var version: Int
                var name: String
            }
            var applied: [Entry]
            var known: Int
        }

        private struct StatusEntry: Encodable {
            var version: Int
            var name: String
            var appliedAt: Date?
            var changed: Bool

            // `applied_at: null` for pending migrations, rather than a missing key.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(version, forKey: .version)
                try container.encode(name, forKey: .name)
                try container.encode(appliedAt, forKey: .appliedAt)
                try container.encode(changed, forKey: .changed)
            }

            enum CodingKeys: String, CodingKey {
                case version, name, appliedAt, changed
            }
        }

        private func printApplied(_ applied: [Migration], known: Int) throws {
            if json {
                try JSONOutput.print(AppliedReport(applied: applied.map { .init(version: $0.version, name: $0.name) }, known: known))
                return
            }
            if applied.isEmpty {
                print("Database is up to date: nothing to apply (\(known) migration\(known == 1 ? "" : "s") known).")
            } else {
                for migration in applied {
                    print("applied \(Self.fileName(migration.version, migration.name))")
                }
                print("Applied \(applied.count) migration\(applied.count == 1 ? "" : "s").")
            }
        }

        private func printStatus(_ statuses: [MigrationRunner.Status]) throws {
            if json {
                try JSONOutput.print(
                    statuses.map { StatusEntry(version: $0.version, name: $0.name, appliedAt: $0.appliedAt, changed: $0.changedSinceApplied) })
                return
            }
            for status in statuses {
                let state = status.appliedAt.map { "applied \(ISO8601DateFormatter().string(from: $0))" } ?? "pending"
                let warning = status.changedSinceApplied ? "  (file changed since it was applied)" : ""
                print("\(Self.fileName(status.version, status.name))  \(state)\(warning)")
            }
            let pending = statuses.filter { !$0.isApplied }.count
            print(pending == 0 ? "Up to date." : "\(pending) pending: run `steno migrate`.")
        }

        private static func fileName(_ version: Int, _ name: String) -> String {
            String(format: "%04d_%@", version, name)
        }
    }
}
