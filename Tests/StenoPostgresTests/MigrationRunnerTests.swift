import Foundation
import StenoTestSupport
import Testing

@testable import StenoPostgres

@Suite("MigrationRunner")
struct MigrationRunnerTests {
    let migrations: [Migration]

    init() throws {
        migrations = try Migration.load(from: PackageRoot.migrations)
    }

    @Test("applies the schema once; a second run applies nothing")
    func appliesOnce() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let runner = MigrationRunner(migrations: migrations)
            #expect(try await runner.pending(on: connection).count == migrations.count)

            let first = try await runner.migrate(on: connection)
            #expect(first.map(\.version) == migrations.map(\.version))
            let second = try await runner.migrate(on: connection)
            #expect(second.isEmpty)

            let tables = try await connection.query(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
            ).map { try $0.decode("table_name", as: String.self) }
            for table in ["chapters", "chunks", "job_attempts", "jobs", "media", "segments", "steno_migrations", "workers"] {
                #expect(tables.contains(table), "table \(table)")
            }
            let statuses = try await runner.status(on: connection)
            #expect(statuses.allSatisfy { $0.isApplied && !$0.changedSinceApplied })
            await connection.close()
        }
    }

    @Test("ten processes migrating at once apply each migration exactly once")
    func concurrent() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let runner = MigrationRunner(migrations: migrations)
            let appliedCounts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        let connection = try await PostgresConnection.connect(configuration: database.configuration)
                        let applied = try await runner.migrate(on: connection)
                        await connection.close()
                        return applied.count
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(appliedCounts.reduce(0, +) == migrations.count)
            let client = database.client()
            let rows = try await client.query("SELECT count(*) AS n, count(DISTINCT version) AS distinct_versions FROM steno_migrations").single()
            #expect(try rows.decode("n", as: Int.self) == migrations.count)
            #expect(try rows.decode("distinct_versions", as: Int.self) == migrations.count)
            await client.shutdown()
        }
    }

    @Test("a migration that lost a race on the cluster's roles is applied again in a new transaction")
    func lostClusterRaceIsRetried() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            // A sequence is outside the transaction: it counts the attempts that were rolled back.
            try await connection.query("CREATE SEQUENCE attempts")
            let racing = Migration(version: 1, name: "grants_to_a_role_another_database_creates", sql: """
                DO $$ BEGIN
                    IF nextval('attempts') = 1 THEN
                        RAISE EXCEPTION 'role "steno_api" does not exist' USING ERRCODE = '42704';
                    END IF;
                END $$;
                CREATE TABLE granted (id integer);
                """)
            let applied = try await MigrationRunner(migrations: [racing]).migrate(on: connection)
            #expect(applied.map(\.version) == [1])
            #expect(try await connection.query("SELECT last_value FROM attempts").single().decode("last_value", as: Int.self) == 2)
            #expect(try await connection.query("SELECT to_regclass('granted') IS NOT NULL AS present").single().decode("present", as: Bool.self))
            await connection.close()
        }
    }

    @Test("a migration that fails the same way each time is reported after its last attempt, with nothing applied")
    func wrongMigrationFailsAfterAttempts() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            try await connection.query("CREATE SEQUENCE attempts")
            let wrong = Migration(version: 1, name: "grants_to_a_missing_role", sql: """
                SELECT nextval('attempts');
                CREATE TABLE granted (id integer);
                GRANT SELECT ON granted TO steno_no_such_role;
                """)
            let error = await #expect(throws: PostgresError.self) {
                _ = try await MigrationRunner(migrations: [wrong]).migrate(on: connection)
            }
            #expect(error?.code == .migrationFailed)
            #expect(error?.sqlState == "42704")
            #expect(error?.message.contains("steno_no_such_role") == true)
            #expect(try await connection.query("SELECT last_value FROM attempts").single().decode("last_value", as: Int.self)
                == MigrationRunner.attemptsAfterClusterRace)
            #expect(try await connection.query("SELECT to_regclass('granted') IS NULL AS absent").single().decode("absent", as: Bool.self))
            await connection.close()
        }
    }

    @Test("only errors of a shared-catalog race are tried again")
    func clusterRaceClassification() {
        for state in ["42704", "23505", "42710", "40001", "40P01"] {
            #expect(MigrationRunner.lostClusterRace(PostgresError(.serverError, "x", sqlState: state)), "\(state)")
        }
        for state in ["42601", "42P01", "42501", "23502"] {
            #expect(!MigrationRunner.lostClusterRace(PostgresError(.serverError, "x", sqlState: state)), "\(state)")
        }
        #expect(!MigrationRunner.lostClusterRace(PostgresError(.connectionLost, "x", sqlState: "42704")))
    }

    @Test("a migration edited after it was applied is refused with a hint")
    func changedMigration() async throws {
        try await TestDatabase.with { database in
            var edited = migrations
            edited[0].sql += "\n-- edited later\n"
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let error = await #expect(throws: PostgresError.self) {
                _ = try await MigrationRunner(migrations: edited).migrate(on: connection)
            }
            #expect(error?.code == .migrationFailed)
            #expect(error?.hint?.contains("new numbered migration") == true)
            #expect(try await MigrationRunner(migrations: edited).status(on: connection)[0].changedSinceApplied)
            await connection.close()
        }
    }

    @Test("an owner without CREATEROLE migrates a fresh database once an administrator made the roles")
    func ownerWithoutCreateRole() async throws {
        try await TestDatabase.with(migrated: false) { database in
            let owner = "t_owner_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
            let admin = try await PostgresConnection.connect(configuration: database.configuration)
            // Every role a migration needs (0001's three, 0013's steno_api): without CREATEROLE the
            // owner can make none, and on a fresh cluster no other test has made them first.
            for role in ["steno_worker", "steno_admin", "steno_reporting", "steno_api"] {
                try await admin.query("DO $$ BEGIN CREATE ROLE \(role) NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$", [])
            }
            // Generated names, never user input: safe as identifiers.
            try await admin.query("CREATE ROLE \(owner) LOGIN NOCREATEROLE NOSUPERUSER", [])
            try await admin.query("ALTER DATABASE \(database.name) OWNER TO \(owner)", [])
            let connection = try await PostgresConnection.connect(configuration: database.connecting(as: owner).configuration)
            let applied = try await MigrationRunner(migrations: migrations).migrate(on: connection)
            #expect(applied.map(\.version) == migrations.map(\.version))
            await connection.close()
            try await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = \(owner)")
            await admin.close()
            try await database.drop()
            let cluster = try await PostgresConnection.connect(configuration: PostgresConfiguration(connectionString: try TestDatabase.clusterConnectionString()))
            try await cluster.query("DROP ROLE IF EXISTS \(owner)", [])
            await cluster.close()
        }
    }

    @Test("a database that applied 0001 before its correction in place is up to date, not refused")
    func correctedMigrationIsAccepted() async throws {
        try await TestDatabase.with { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            try await connection.query("UPDATE steno_migrations SET checksum = 'c6ce00d173c95d56' WHERE version = 1")
            #expect(try await MigrationRunner(migrations: migrations).migrate(on: connection).isEmpty)
            try await connection.query("UPDATE steno_migrations SET checksum = '0123456789abcdef' WHERE version = 1")
            await #expect { _ = try await MigrationRunner(migrations: migrations).migrate(on: connection) } throws: {
                "\($0)".contains("was changed after it was applied")
            }
            await connection.close()
        }
    }

    @Test("a failing migration is rolled back whole and reported with its name")
    func failingMigrationRollsBack() async throws {
        try await TestDatabase.with { database in
            let broken = migrations + [Migration(version: 9999, name: "broken", sql: "CREATE TABLE half_done (id int); SELECT no_such_function();")]
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let error = await #expect(throws: PostgresError.self) {
                _ = try await MigrationRunner(migrations: broken).migrate(on: connection)
            }
            #expect(error?.code == .migrationFailed)
            #expect(error?.message.contains("9999_broken") == true)
            let exists = try await connection.query("SELECT to_regclass('half_done') IS NOT NULL AS present").single().decode("present", as: Bool.self)
            #expect(!exists)
            // The lock was released: a correct run still goes through.
            #expect(try await MigrationRunner(migrations: migrations).migrate(on: connection).isEmpty)
            await connection.close()
        }
    }

    @Test("file names must be numbered")
    func badFileName() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("steno-migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "SELECT 1;".write(to: directory.appendingPathComponent("schema.sql"), atomically: true, encoding: .utf8)
        let error = #expect(throws: PostgresError.self) { try Migration.load(from: directory) }
        #expect(error?.message.contains("NNNN_description.sql") == true)
    }
}
