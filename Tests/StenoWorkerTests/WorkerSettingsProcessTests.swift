import Foundation
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
