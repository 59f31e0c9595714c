public import Foundation
public import Logging

/// Applies pending migrations in order, each in its own transaction, under an advisory lock so
/// that any number of processes may run it at once (every pod of a deployment, say).
public struct MigrationRunner: Sendable {
    public struct Status: Sendable, Equatable {
        public var version: Int
        public var name: String
        public var appliedAt: Date?
        /// The file differs from the one that was applied.
        public var changedSinceApplied: Bool
        public var isApplied: Bool { appliedAt != nil }
    }

    /// The key of the session advisory lock held while migrating (an arbitrary constant: "steno" in ASCII).
    static let advisoryLockKey: Int64 = 0x73_74_65_6e_6f

    public let migrations: [Migration]
    let logger: Logger

    public init(migrations: [Migration], logger: Logger = Logger(label: "steno.migrate")) {
        self.migrations = migrations
        self.logger = logger
    }

    /// Applies what is pending; returns what this call applied (nothing when another process did it).
    public func migrate(on connection: PostgresConnection) async throws -> [Migration] {
        try await connection.query("SELECT pg_advisory_lock($1)", [Self.advisoryLockKey])
        do {
            let applied = try await applyPending(on: connection)
            try await connection.query("SELECT pg_advisory_unlock($1)", [Self.advisoryLockKey])
            return applied
        } catch let error as PostgresError where error.code == .connectionLost {
            throw error  // the session, and with it the lock, is gone
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock($1)", [Self.advisoryLockKey])
            throw error
        }
    }

    /// Every known migration, applied or pending, without changing anything.
    public func status(on connection: PostgresConnection) async throws -> [Status] {
        let applied = try await appliedMigrations(on: connection)
        var statuses = migrations.map { migration in
            let record = applied[migration.version]
            return Status(
                version: migration.version, name: migration.name, appliedAt: record?.appliedAt,
                changedSinceApplied: record.map { !migration.matches(appliedChecksum: $0.checksum) } ?? false)
        }
        // Versions applied by a newer Steno than this one.
        for (version, record) in applied where !migrations.contains(where: { $0.version == version }) {
            statuses.append(Status(version: version, name: record.name, appliedAt: record.appliedAt, changedSinceApplied: false))
        }
        return statuses.sorted { $0.version < $1.version }
    }

    /// The versions not yet applied.
    public func pending(on connection: PostgresConnection) async throws -> [Migration] {
        let applied = try await appliedMigrations(on: connection)
        return migrations.filter { applied[$0.version] == nil }
    }

    private func applyPending(on connection: PostgresConnection) async throws -> [Migration] {
        // Only when it is missing: a role without CREATE on the schema (steno_admin) can then run
        // an up-to-date `steno migrate`, which reads and checks and changes nothing.
        if try await !historyExists(on: connection) {
            try await createHistoryTable(on: connection)
        }
        let applied = try await appliedMigrations(on: connection)
        for migration in migrations {
            if let record = applied[migration.version], !migration.matches(appliedChecksum: record.checksum) {
                throw PostgresError(
                    .migrationFailed,
                    "migration \(migration.version)_\(migration.name) was changed after it was applied",
                    hint: "restore the original file and add the change as a new numbered migration")
            }
        }
        var newlyApplied: [Migration] = []
        for migration in migrations where applied[migration.version] == nil {
            do {
                try await apply(migration, on: connection)
            } catch var error as PostgresError {
                error.code = error.code == .connectionLost ? .connectionLost : .migrationFailed
                error.message = "migration \(migration.version)_\(migration.name) failed and was rolled back: \(error.message)"
                if error.sqlState == "42501" {
                    error.hint = "this role may not change the schema: run `steno migrate` as the database owner (see the README, Roles)"
                }
                throw error
            }
            logger.info("applied migration", metadata: ["migration.version": "\(migration.version)", "migration.name": "\(migration.name)"])
            newlyApplied.append(migration)
        }
        return newlyApplied
    }

    /// Applies one migration in a transaction, again when it lost a race on the cluster's shared
    /// catalog (see `lostClusterRace`).
    private func apply(_ migration: Migration, on connection: PostgresConnection) async throws {
        var attempt = 1
        while true {
            do {
                try await connection.withTransaction { connection in
                    try await connection.executeScript(migration.sql)
                    try await connection.query(
                        "INSERT INTO steno_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                        [migration.version, migration.name, migration.checksum])
                }
                return
            } catch let error as PostgresError where Self.lostClusterRace(error) && attempt < Self.attemptsAfterClusterRace {
                logger.warning(
                    "migration lost a race with another database of the cluster; applying it again",
                    metadata: [
                        "migration.version": "\(migration.version)", "migration.name": "\(migration.name)",
                        "attempt": "\(attempt)", "error": "\(error)",
                    ])
                attempt += 1
            }
        }
    }

    /// How many times a migration is tried when it keeps losing races on the shared catalog.
    static let attemptsAfterClusterRace = 3

    /// Whether a failed migration may have lost a race with another database of the same cluster.
    ///
    /// Roles live in the cluster, not in a database, and the advisory lock held while migrating
    /// is per database: two databases migrating at once (test databases, or two deployments on
    /// one server) both create a missing role. The loser's check and its grants can then read
    /// the shared catalog at different moments, and a grant can find the role missing (42704)
    /// or the creation collide (23505, 42710). The transaction was rolled back, and a new one
    /// reads the shared catalog afresh, so trying again is safe; a migration that is simply
    /// wrong fails the same way each time and is reported as it was.
    static func lostClusterRace(_ error: PostgresError) -> Bool {
        guard error.code == .serverError, let state = error.sqlState else { return false }
        return ["42704", "23505", "42710", "40001", "40P01"].contains(state)
    }

    private func historyExists(on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("SELECT to_regclass('steno_migrations') IS NOT NULL AS present").single().decode("present")
    }

    private func createHistoryTable(on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS steno_migrations (
                version     integer PRIMARY KEY,
                name        text NOT NULL,
                checksum    text NOT NULL,
                applied_at  timestamptz NOT NULL DEFAULT now()
            )
            """)
    }

    private func appliedMigrations(on connection: PostgresConnection) async throws -> [Int: (name: String, checksum: String, appliedAt: Date)] {
        guard try await historyExists(on: connection) else { return [:] }
        var applied: [Int: (String, String, Date)] = [:]
        for row in try await connection.query("SELECT version, name, checksum, applied_at FROM steno_migrations") {
            applied[try row.decode("version")] = (try row.decode("name"), try row.decode("checksum"), try row.decode("applied_at"))
        }
        return applied
    }
}
