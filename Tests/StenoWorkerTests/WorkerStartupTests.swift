import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Under podman-compose and Kubernetes a worker can start before PostgreSQL answers and before
/// `steno migrate` has made the schema: it waits for both itself.
// A guard against a hang, not a bound on speed: the least-privilege worker transcribes the book
// through the in-process steno-asr, which shares two cores with the rest of the worker phase
// (19 s alone, over 120 s twice in a loaded phase), as the other end-to-end suites' 5 minutes allow.
@Suite("Worker startup", .serialized, .timeLimit(.minutes(5)))
struct WorkerStartupTests {
    /// With no schema at all, and with every migration but the newest: a worker of this release
    /// must not register (or claim) on tables it does not know yet.
    @Test("a worker started on a database without its schema waits for `steno migrate`, then registers with this release's version",
          arguments: [0, StenoSchema.requiredMigration - 1])
    func waitsForTheSchema(appliedBefore: Int) async throws {
        try await TestDatabase.with(migrated: false) { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let all = try Migration.load(from: PackageRoot.migrations)
            if appliedBefore > 0 {
                let connection = try await PostgresConnection.connect(configuration: database.configuration)
                _ = try await MigrationRunner(migrations: all.filter { $0.version <= appliedBefore }).migrate(on: connection)
                await connection.close()
            }
            let clock = ManualClock()
            try await RunningWorker.with(database: database, backendURL: "http://127.0.0.1:9", clock: clock) { worker in
                // The worker looked, found the schema short, and waits its second before it looks
                // again: on this clock, until the test moves it.
                try await poll(until: { clock.sleeps.contains(.seconds(1)) }, "the worker waiting for the schema")
                if appliedBefore > 0 {
                    let early: Int = try await client.query("SELECT count(*) AS n FROM workers").single().decode("n")
                    #expect(early == 0, "the worker registered on a schema at migration \(appliedBefore)")
                }
                let connection = try await PostgresConnection.connect(configuration: database.configuration)
                _ = try await MigrationRunner(migrations: all).migrate(on: connection)
                await connection.close()
                clock.advance(by: .seconds(1))
                var registered = 0
                try await poll(until: {
                    registered = try await client.query("SELECT count(*) AS n FROM workers WHERE status = 'running'").single().decode("n")
                    return registered == 1
                }, "the worker registered")
                #expect(registered == 1, "the worker did not register once the schema was made")
                let version: String = try await client.query("SELECT version FROM workers").single().decode("version")
                #expect(version == StenoVersion.current)
            }
        }
    }

    @Test("a worker logged in as steno_worker (no more than that role may do) transcribes the book to the end")
    func leastPrivilegeWorker() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await database.withLogin(inRole: "steno_worker") { workerLogin in
                try await RunningASRBackend.with { asr in
                    try await RunningWorker.with(database: workerLogin, backendURL: asr.baseURL) { _ in
                        let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path)
                        let state = try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"])
                        let ended = try await db.mediaState(mediaID)
                        #expect(state == "succeeded", "\(ended)")
                    }
                }
            }
        }
    }

    @Test("STENO_DATABASE_WAIT_SECONDS sets the wait; a value out of range or not a whole number is refused by name")
    func waitVariable() throws {
        #expect(try PostgresConfiguration.fromEnvironment(["STENO_DATABASE_WAIT_SECONDS": "120"]).reconnectWindow == .seconds(120))
        #expect(try PostgresConfiguration.fromEnvironment([:], defaultWait: .seconds(60)).reconnectWindow == .seconds(60))
        for bad in ["-1", "3601", "1e9", "nan", "ten"] {
            #expect {
                _ = try PostgresConfiguration.fromEnvironment(["STENO_DATABASE_WAIT_SECONDS": bad])
            } throws: { error in
                "\(error)".contains("STENO_DATABASE_WAIT_SECONDS") && "\(error)".contains(bad)
            }
        }
    }

    @Test("a worker without its speech-detection model, or with a file that is not it, exits 1 naming the file and how to fetch it")
    func refusesAMissingOrForeignModel() async throws {
        let foreign = FileManager.default.temporaryDirectory.appendingPathComponent("steno-not-a-model-\(UUID().uuidString).onnx")
        try Data("not a model".utf8).write(to: foreign)
        defer { try? FileManager.default.removeItem(at: foreign) }
        for (path, code) in [("/nonexistent/silero_vad_v6.onnx", "missing_model"), (foreign.path, "malformed_model")] {
            var environment = ProcessInfo.processInfo.environment
            environment["STENO_VAD_MODEL"] = path
            let result = try await ChildProcess.run(PackageRoot.product("steno-worker").path, [], environment: environment, timeLimit: .seconds(30))
            #expect(result.status == 1, "\(path): \(result.standardError)")
            // The log is JSON lines when standard error is not a terminal.
            let errors = result.standardError.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["error"] as? String
            }
            let error = try #require(errors.first, "\(result.standardError)")
            #expect(error.contains(path))
            #expect(error.contains(code))
            #expect(error.contains("scripts/vad-model"))
        }
    }

    @Test("a malformed database URL's password never appears in the error")
    func malformedURLIsRedacted() async throws {
        let password = TestSecret.make("pw")
        let configuration = PostgresConfiguration(
            connectionString: "postgres://user:\(password)@[bad/db", reconnectWindow: .milliseconds(100))
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration)
            await connection.close()
            Issue.record("a malformed URL connected")
        } catch {
            #expect(!"\(error)".contains(password), "\(error)")
        }
    }
}
