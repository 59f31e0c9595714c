import Foundation
import StenoCore
import StenoPostgres
import StenoTestSupport
import Testing

/// The `steno-worker` executable's settings as operators give them: numbers out of range or not
/// finite stop it at once with the setting named, and the HTTP address is configurable.
@Suite("steno-worker settings", .serialized, .timeLimit(.minutes(5)))
struct WorkerSettingsProcessTests {
    @Test("a number out of range, not finite or not a number, or a switch neither on nor off, stops the worker with exit 1 and names the setting", arguments: [
        ("STENO_WORKER_CONCURRENCY", "1e308"), ("STENO_WORKER_CONCURRENCY", "0"), ("STENO_WORKER_LEASE_SECONDS", "inf"),
        ("STENO_WORKER_LEASE_SECONDS", "nan"), ("STENO_WORKER_GRACE_SECONDS", "99999999999"), ("STENO_WORKER_HTTP_PORT", "70000"),
        ("STENO_CHUNK_SECONDS", "-5"), ("STENO_DATABASE_WAIT_SECONDS", "forever"), ("STENO_WORKER_EXTRACTION_SLOTS", "0"),
        ("STENO_RECOVER_SPEECH", "maybe"), ("STENO_SPEECH_DETECTION", "1"), ("STENO_WORKER_QUARANTINE_MAX_SECONDS", "0.5"),
        ("STENO_WORKER_RETRY_DELAY_SECONDS", "0"), ("STENO_WORKER_RETRY_DELAY_MAX_SECONDS", "10"),
        ("STENO_WORKER_OUTAGE_PROBE_SECONDS", "nan"), ("STENO_WORKER_OUTAGE_PROBE_MAX_SECONDS", "2"),
    ])
    func badNumbers(variable: String, value: String) async throws {
        var environment = [
            "STENO_DATABASE_URL": "postgres://steno@127.0.0.1:1/steno", "STENO_BACKEND_URL": "http://127.0.0.1:9",
            "STENO_WORKER_HTTP_PORT": "0",
        ]
        environment[variable] = value
        let worker = try WorkerProcess(id: "bad-settings", environment: environment)
        // 60 s bounds a hang. Once, in a loaded worker phase, the test still saw the process
        // running 15 s after it had logged its error (20 s was the bound then).
        let status = try await worker.waitForExit(timeout: .seconds(60))
        #expect(status == 1, "\(worker.log)")
        #expect(worker.log.contains(variable), "\(worker.log)")
        #expect(!worker.log.contains("Fatal error") && !worker.log.contains("Stack dump"), "\(worker.log)")
    }

    /// The waits are far longer than the test, which reads them where the worker wrote them
    /// and waits for neither.
    @Test("a job that failed transiently waits the retry delay given, and a backend found down the probe wait given")
    func retryAndProbeWaits() async throws {
        for (backend, variable, seconds) in [
            (try FaultServer(replies: [], then: .openAIError(503, message: "overloaded", type: "server_error")), "STENO_WORKER_RETRY_DELAY_SECONDS", 600.0),
            (try FaultServer(replies: [], then: .reset), "STENO_WORKER_OUTAGE_PROBE_SECONDS", 250.0),
        ] {
            defer { backend.stop() }
            try await TestDatabase.with { database in
                let client = database.client()
                let db = WorkerTestDatabase(client: client)
                let media = try await db.enqueue(FixtureBook.file("book.m4b").path)
                let worker = try WorkerProcess(
                    id: "waits-\(Int(seconds))", environment: [
                        "STENO_DATABASE_URL": database.configuration.connectionString, "STENO_BACKEND_URL": backend.baseURL,
                        "STENO_MAX_RETRIES": "0", "STENO_WORKER_HTTP_PORT": "0", variable: "\(Int(seconds))",
                    ])
                defer { worker.signal(SIGKILL) }
                let statement = variable == "STENO_WORKER_RETRY_DELAY_SECONDS"
                    // 10 % jitter either way.
                    ? "SELECT extract(epoch FROM run_at - now())::float8 AS wait FROM jobs WHERE media_id = \(media) AND state = 'queued' AND run_at > now() + interval '60 seconds' LIMIT 1"
                    : "SELECT probe_seconds AS wait FROM backend_outages"
                let wait = try await polled(within: .seconds(120)) { () -> Double? in
                    guard worker.isRunning else { return .nan }
                    return try? await db.client.query(PostgresQuery(sql: statement, parameters: [])).first?.decode("wait", as: Double.self)
                }
                let found = try #require(wait.flatMap { $0.isNaN ? nil : $0 }, "\(variable)=\(Int(seconds)): no wait written: \(worker.log)")
                #expect(found >= 0.85 * seconds && found <= 1.1 * seconds, "\(variable)=\(Int(seconds)): the worker waits \(found) s")
                await client.shutdown()
            }
        }
    }

    @Test("STENO_WORKER_HTTP_HOST sets the address of /healthz, /readyz and /metrics")
    func httpHost() async throws {
        try await TestDatabase.with { database in
            // Port 0: the system picks a free port, which the worker's log names. A port the test
            // picked could be taken, and then the curl below would ask whatever holds it.
            let worker = try WorkerProcess(
                id: "http-host", environment: [
                    "STENO_DATABASE_URL": database.configuration.connectionString, "STENO_BACKEND_URL": "http://127.0.0.1:9",
                    "STENO_WORKER_HTTP_HOST": "127.0.0.1", "STENO_WORKER_HTTP_PORT": "0", "STENO_LOG_LEVEL": "info",
                ])
            let port = try await polled(within: .seconds(60)) {
                worker.log.firstMatch(of: /listening on 127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) }
            }
            let bound = try #require(port, "the worker did not say it listens on 127.0.0.1: \(worker.log)")
            var answered = false
            try await poll(until: {
                let curl = try await ChildProcess.run("/usr/bin/curl", ["-fsS", "http://127.0.0.1:\(bound)/healthz"])
                answered = curl.status == 0 && curl.standardOutput == "ok\n"
                return answered
            }, "the worker's /healthz")
            #expect(answered, "\(worker.log)")
            worker.signal(SIGTERM)
            #expect(try await worker.waitForExit(timeout: .seconds(20)) == 0, "\(worker.log)")
        }
    }
}
