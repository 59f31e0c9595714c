import Foundation
import StenoPostgres
import StenoTestSupport
import StenoTranscription
import Testing

/// `/healthz`, `/readyz` and `/metrics` of a worker that transcribed a media.
@Suite("Worker health and metrics", .serialized, .timeLimit(.minutes(5)))
struct WorkerHTTPTests {
    /// A GET by curl, with curl's complaint when it got no answer. The limit is generous: in a
    /// clean-clone run of 2026-11-29 the machine was so loaded (steno-asr took 42 s for 1 s of
    /// audio) that `/metrics` did not answer within 10 s.
    private func get(_ url: String) async throws -> (status: Int, body: String, error: String) {
        let result = try await ChildProcess.run("/usr/bin/curl", ["-sS", "--max-time", "120", "-w", "\n%{http_code}", url])
        var lines = result.standardOutput.components(separatedBy: "\n")
        let status = Int(lines.removeLast()) ?? 0
        return (status, lines.joined(separator: "\n"), result.standardError)
    }

    @Test("health, readiness and Prometheus metrics by kind, outcome and failure class")
    func endpoints() async throws {
        let backend = try FaultServer(replies: [.openAIError(503, message: "overloaded", type: "server_error")])
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL, configureBackend: { $0.retry.maximumRetries = 0 }
            ) { worker in
                let base = "http://127.0.0.1:\(worker.httpPort)"
                #expect(try await get("\(base)/healthz").status == 200)
                #expect(try await get("\(base)/readyz").status == 200)

                let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(90)) == "succeeded")
                let chunks = try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1", mediaID)
                let metrics = try await get("\(base)/metrics")
                #expect(metrics.status == 200, "\(metrics.error)")
                let lines = Set(metrics.body.split(separator: "\n").map(String.init))
                #expect(lines.contains(#"steno_worker_jobs_total{kind="media",outcome="succeeded"} 1"#))
                #expect(lines.contains(#"steno_worker_jobs_total{kind="chapter",outcome="succeeded"} 3"#))
                #expect(lines.contains(#"steno_worker_jobs_total{kind="merge",outcome="succeeded"} 3"#))
                #expect(lines.contains("steno_worker_jobs_total{kind=\"chunk\",outcome=\"succeeded\"} \(chunks)"))
                #expect(lines.contains(#"steno_worker_jobs_total{kind="chunk",outcome="retry"} 1"#))
                #expect(lines.contains(#"steno_worker_failures_total{class="transient"} 1"#))
                #expect(lines.contains("steno_worker_backend_latency_seconds_count \(chunks)"))
                let inFlight = lines.first { $0.hasPrefix("steno_worker_jobs_in_flight ") }
                #expect(inFlight.flatMap { Double($0.split(separator: " ")[1]) } == 0, "\(inFlight ?? "no jobs_in_flight")")
                let audio = lines.first { $0.hasPrefix("steno_worker_audio_seconds_total ") }
                    .flatMap { Double($0.split(separator: " ")[1]) } ?? 0
                #expect(audio > 29, "audio seconds \(audio) for a 29 s book with overlaps")
            }
        }
    }
}
