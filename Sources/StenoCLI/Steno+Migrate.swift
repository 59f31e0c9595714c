import ArgumentParser
import Foundation
import Logging
import StenoPostgres

extension Steno {
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply pending database migrations, or list them with --status.",
            discussion: HelpText.reflow("""
                Safe to run from many processes at once: they take an advisory lock, and only one
                applies each migration. Each migration runs in its own transaction.

                \(StenoExitCode.help)
                """))

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "List applied and pending migrations without changing anything.")
        var status = false

        @Option(help: ArgumentHelp("Directory of NNNN_name.sql files (default: STENO_MIGRATIONS_DIR, ./migrations).", valueName: "dir"))
        var migrations: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() async throws {
            do {
                let directory = try Migration.locateDirectory(explicit: migrations)
                let runner = MigrationRunner(migrations: try Migration.load(from: directory), logger: Logger(label: "steno.migrate"))
                let connection = try await PostgresConnection.connect(configuration: try database.configuration())
                defer { Task { await connection.close() } }
                if status {
                    try await printStatus(try await runner.status(on: connection))
                } else {
                    let applied = try await runner.migrate(on: connection)
                    printApplied(applied, total: runner.migrations.count)
                }
            } catch let error as PostgresError {
                throw CLIFailure.exit(for: error)
            }
        }

        private func printApplied(_ applied: [Migration], total: Int) {
            if json {
                let versions = applied.map { "{\"version\":\($0.version),\"name\":\"\($0.name)\"}" }
                print("{\"applied\":[\(versions.joined(separator: ","))],\"known\":\(total)}")
                return
            }
            if applied.isEmpty {
                print("Database is up to date: nothing to apply (\(total) migration\(total == 1 ? "" : "s") known).")
            } else {
                for migration in applied {
                    print("applied \(String(format: "%04d", migration.version))_\(migration.name)")
                }
                print("Applied \(applied.count) migration\(applied.count == 1 ? "" : "s").")
            }
        }

        private func printStatus(_ statuses: [MigrationRunner.Status]) async throws {
            if json {
                let items = statuses.map { status in
                    let applied = status.appliedAt.map { "\"\(ISO8601DateFormatter().string(from: $0))\"" } ?? "null"
                    return "{\"version\":\(status.version),\"name\":\"\(status.name)\",\"applied_at\":\(applied),\"changed\":\(status.changedSinceApplied)}"
                }
                print("[\(items.joined(separator: ","))]")
                return
            }
            for status in statuses {
                let state = status.appliedAt.map { "applied \(ISO8601DateFormatter().string(from: $0))" } ?? "pending"
                let warning = status.changedSinceApplied ? "  (file changed since it was applied)" : ""
                print("\(String(format: "%04d", status.version))_\(status.name)  \(state)\(warning)")
            }
            let pending = statuses.filter { !$0.isApplied }.count
            print(pending == 0 ? "Up to date." : "\(pending) pending: run `steno migrate`.")
        }
    }
}
