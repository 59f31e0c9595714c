import Foundation
import StenoCore
import StenoPostgres
import StenoTestSupport
import Testing

/// What a worker costs the database in sessions: at most three at any concurrency, and a fleet
/// behind PgBouncer in transaction mode keeps one direct session a worker for LISTEN and its
/// liveness lock. In the serialized suite of worker processes: each runs a worker process,
/// which beside the other process tests would load the two cores the timed tests share.
extension WorkerProcessTests {
    /// The most sessions named `applicationName` held in `database` at once, sampled
    /// every 20 ms while `body` runs.
    static func peakSessions(
        in database: TestDatabase, client: PostgresClient, named applicationName: String = "steno-worker", while body: () async throws -> Void
    ) async throws -> Int {
        let name = database.name
        // A client of its own, so that no statement of the body's queues in front of a sample,
        // and a sample that fails is an error, not a count of 0.
        let sampling = database.client(maxConnections: 1)
        defer { Task { await sampling.shutdown() } }
        let sampler = Task { () throws -> Int in
            var peak = 0
            // Sampled as often as the poll looks, until the body is done.
            _ = try? await polled(within: .seconds(3600)) { () throws -> Bool? in
                guard !Task.isCancelled else { return true }
                let now: Int = try await sampling.query(
                    "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = \(name) AND application_name = \(applicationName)"
                ).single().decode("n")
                peak = max(peak, now)
                return nil
            }
            return peak
        }
        do {
            try await body()
        } catch {
            sampler.cancel()
            throw error
        }
        // One sample more after the body: the sessions a worker keeps open are counted even if
        // the body ended before the sampler first ran.
        sampler.cancel()
        let last: Int = try await sampling.query(
            "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = \(name) AND application_name = \(applicationName)"
        ).single().decode("n")
        return max(try await sampler.value, last)
    }

    @Test("a worker running 16 jobs at once holds at most 3 database sessions: 2 pooled and the one that listens")
    func threeSessionsAtHighConcurrency() async throws {
        // A backend that answers at once: the chunk jobs overlap, and no model loads the cores.
        let backend = try FaultServer(replies: [], then: .json(200, #"{"text":"Heard."}"#))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            do {
                let worker = try WorkerProcess(id: "sessions-worker", environment: [
                    "STENO_DATABASE_URL": database.configuration.connectionString,
                    "STENO_BACKEND_URL": backend.baseURL,
                    "STENO_CHUNK_SECONDS": "4",
                    "STENO_WORKER_CONCURRENCY": "16",
                    "STENO_LOG_LEVEL": "warning",
                    "STENO_WORKER_HTTP_PORT": "0",
                ])
                let peak = try await Self.peakSessions(in: database, client: client) {
                    let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path)
                    let state = try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(150), processes: [worker])
                    #expect(state == "succeeded", "worker log: \(worker.log)")
                }
                print("a worker at concurrency 16: at most \(peak) database sessions while it transcribed the book")
                #expect(peak >= 2, "the sampler saw the worker's sessions")
                #expect(peak <= 3)
                worker.signal(SIGTERM)
                #expect(try await worker.waitForExit(timeout: .seconds(15)) == 0, "worker log: \(worker.log)")
            }
        }
    }

    @Test("through PgBouncer in transaction mode the worker transcribes the book; LISTEN and the liveness lock stay on the direct session")
    func behindPgBouncer() async throws {
        let cluster = try TestDatabase.clusterConnectionString()
        guard let host = cluster.split(separator: " ").first(where: { $0.hasPrefix("host=/") })?.dropFirst(5) else {
            throw TestEnvironmentError("the test cluster is not a scripts/pg-cluster socket directory: \(cluster)")
        }
        let bouncer = try await PgBouncer(clusterDirectory: String(host), poolSize: 3)
        defer { bouncer.stop() }
        let backend = try FaultServer(replies: [], then: .json(200, #"{"text":"Heard."}"#))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            do {
                let worker = try WorkerProcess(id: "pooled-worker", environment: [
                    "STENO_DATABASE_URL": bouncer.connectionString + " dbname=\(database.name) application_name=steno-pooled",
                    "STENO_DATABASE_DIRECT_URL": database.configuration.connectionString,
                    "STENO_BACKEND_URL": backend.baseURL,
                    "STENO_CHUNK_SECONDS": "4",
                    "STENO_WORKER_CONCURRENCY": "8",
                    "STENO_LOG_LEVEL": "warning",
                    "STENO_WORKER_HTTP_PORT": "0",
                ])
                // PgBouncer passes the client's application name on: the pooled sessions show it.
                let pooled = try await Self.peakSessions(in: database, client: client, named: "steno-pooled") {
                    let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path)
                    let state = try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(150), processes: [worker])
                    #expect(state == "succeeded", "worker log: \(worker.log)")
                }
                print("behind PgBouncer: at most \(pooled) pooled server sessions while the worker transcribed the book")
                #expect(pooled >= 1 && pooled <= 3, "statements went through PgBouncer's pool of 3")
                // The liveness lock is held by the direct session (named by the direct URL's
                // default, not the pooled one's), which is also the one that listens.
                let holders = try await client.query(
                    """
                    SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                    WHERE l.locktype = 'advisory' AND l.classid = \(Int(RescuePolicy.lockNamespace)) AND l.granted AND a.datname = \(database.name)
                    """)
                #expect(holders.count == 1)
                for row in holders {
                    #expect(try row.decode("application_name", as: String.self) == "steno-worker")
                }
                worker.signal(SIGTERM)
                #expect(try await worker.waitForExit(timeout: .seconds(15)) == 0, "worker log: \(worker.log)")
                let status: String = try await client.query("SELECT status FROM workers WHERE id = 'pooled-worker'").single().decode("status")
                #expect(status == "stopped")
            }
        }
    }
}

/// A private PgBouncer in transaction mode (`scripts/pgbouncer`) in front of the test cluster.
struct PgBouncer {
    let directory: String
    let connectionString: String

    init(clusterDirectory: String, poolSize: Int) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("steno-pgbouncer-\(UUID().uuidString)").path
        // It listens only on a socket in its own directory, which the port merely names.
        let started = try await ChildProcess.run(
            PackageRoot.scripts.appendingPathComponent("pgbouncer").path, ["start", directory, "6432", clusterDirectory, "\(poolSize)"])
        guard started.status == 0, let line = started.standardOutput.split(separator: "\n").last else {
            throw TestEnvironmentError("scripts/pgbouncer could not start (exit \(started.status)): \(started.standardError)")
        }
        connectionString = line.replacingOccurrences(of: " dbname=postgres", with: "")
    }

    func stop() {
        _ = try? ChildProcess.runBlocking(PackageRoot.scripts.appendingPathComponent("pgbouncer").path, ["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
