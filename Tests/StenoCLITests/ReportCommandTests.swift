import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

@Suite("steno workers and steno report")
struct ReportCommandTests {
    @Test("workers: live ones with version, held jobs and paused backends; --all adds stopped and silent ones")
    func workers() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            try await TestMediaBuilder.insert(Library.transcribing(), into: client)  // one running job leased by worker-test-1
            try await TestMediaBuilder.insertWorker(
                client, id: TestMediaBuilder.worker, version: "0.2.0", jobsInFlight: 1,
                pausedBackendsJSON: #"{"openai": {"until": "2026-11-21T05:00:00Z", "reason": "HTTP 401"}}"#)
            try await TestMediaBuilder.insertWorker(client, id: "worker-silent", heartbeatAgo: 600)
            try await TestMediaBuilder.insertWorker(client, id: "worker-stopped", status: "stopped")

            let result = try await database.steno(["workers", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let workers = try JSONOf.array(result.standardOutput)
            #expect(workers.map { $0["id"] as? String } == [TestMediaBuilder.worker])
            #expect(workers[0]["version"] as? String == "0.2.0")
            #expect(workers[0]["running_jobs"] as? Int == 1)
            #expect(workers[0]["live"] as? Bool == true)
            let paused = try #require(workers[0]["paused_backends"] as? [String: String])
            #expect(paused["openai"]?.contains("HTTP 401") == true)

            let all = try JSONOf.array(try await database.steno(["workers", "--all", "--json"]).standardOutput)
            #expect(all.map { $0["id"] as? String } == ["worker-silent", "worker-stopped", TestMediaBuilder.worker], "ordered by id")
            #expect(all.map { $0["live"] as? Bool } == [false, false, true])

            let text = try await database.steno(["workers"])
            #expect(text.standardOutput.contains("worker-test-1"))
            #expect(text.standardOutput.contains("openai ("))
            #expect(!text.standardOutput.contains("worker-silent"))
            let strict = try await database.steno(["workers", "--stale-after", "1"])
            #expect(strict.standardOutput.contains("No live workers."), "\(strict.standardOutput)")
            await client.shutdown()
        }
    }

    @Test("report: queue depth, throughput per hour, p50/p95 to done, failures by class, cost by day and model")
    func report() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            // Three talks that took 10, 20 and 30 minutes from enqueue to done.
            for (index, minutes) in [10.0, 20.0, 30.0].enumerated() {
                try await TestMediaBuilder.insert(Library.succeeded(source: "/media/talk\(index).mp3", finishedAgo: 300, createdAgo: 300 + minutes * 60), into: client)
            }
            try await TestMediaBuilder.insert(Library.failedAtProbe(), into: client)
            try await TestMediaBuilder.insert(.init("/media/waiting.mp3", state: "queued"), into: client)

            let result = try await database.steno(["report", "--since", "1d", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let report = try JSONOf.object(result.standardOutput)

            let queue = try #require(report["queue"] as? [[String: Any]])
            func depth(_ kind: String, _ state: String) -> Int? {
                queue.first { $0["kind"] as? String == kind && $0["state"] as? String == state }?["jobs"] as? Int
            }
            #expect(depth("media", "queued") == 1)
            #expect(depth("media", "failed") == 1)
            #expect(depth("chunk", "running") == 1)
            #expect(depth("chunk", "failed") == 1)
            #expect(depth("chunk", "succeeded") == 4 + 3)

            let latency = try #require(report["latency"] as? [String: Any])
            #expect(latency["media"] as? Int == 3)
            #expect(abs((latency["p50_seconds"] as? Double ?? 0) - 1200) < 1)
            #expect(abs((latency["p95_seconds"] as? Double ?? 0) - 1740) < 1, "percentile_cont between 20 and 30 minutes")

            let throughput = try #require(report["throughput"] as? [[String: Any]])
            #expect(throughput.reduce(0) { $0 + ($1["media_done"] as? Int ?? 0) } == 3)
            #expect(throughput.reduce(0) { $0 + ($1["chunks_done"] as? Int ?? 0) } == 7)

            let failures = try #require(report["failures"] as? [[String: Any]])
            let byClass = Dictionary(uniqueKeysWithValues: failures.map { ($0["error_class"] as? String ?? "", $0) })
            // Retried attempts: 2 before the chunk that failed for good, 1 before the chunk that succeeded on its second try.
            #expect(byClass["transient"]?["attempts"] as? Int == 3)
            #expect(byClass["transient"]?["final"] as? Int == 0)
            #expect(byClass["permanent"]?["final"] as? Int == 1)
            #expect(byClass["permanent"]?["last_message"] as? String == "HTTP 415: unsupported audio format")
            #expect(byClass["media"]?["final"] as? Int == 1)

            let costs = try #require(report["costs"] as? [[String: Any]])
            let byModel = Dictionary(grouping: costs) { $0["model"] as? String ?? "" }.mapValues { $0.reduce(0.0) { $0 + ($1["cost_usd"] as? Double ?? 0) } }
            #expect(abs((byModel["whisper-1"] ?? 0) - 0.05) < 1e-9)
            #expect(abs((byModel["gpt-4o-transcribe"] ?? 0) - 0.009) < 1e-9)

            let text = try await database.steno(["report"])
            #expect(text.status == 0)
            for heading in ["Queue", "Throughput per hour", "Enqueue to done", "Failures by class", "Cost by day and model"] {
                #expect(text.standardOutput.contains(heading))
            }
            #expect(text.standardOutput.contains("3 media: p50 20:00, p95 29:00"))
            let bad = try await database.steno(["report", "--since", "last week"])
            #expect(bad.status == 2)
            await client.shutdown()
        }
    }

    @Test("report --since: work finished before the window is in no figure; the longer window adds it, as the views count it")
    func reportWindow() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let threeDays = 3.0 * 86400
            // Finished three days ago, and ten minutes ago.
            for (source, finishedAgo) in [("/media/old.mp3", threeDays), ("/media/new.mp3", 600.0)] {
                try await TestMediaBuilder.insert(
                    .init(source, durationSeconds: 60, createdAgo: finishedAgo + 600, finishedAgo: finishedAgo,
                          chapters: [.init("One", 0, 60, chunks: [.init(0, 60, costUSD: 0.01, attempts: 2)])]),
                    into: client)
            }
            func report(_ since: String) async throws -> [String: Any] {
                let result = try await database.steno(["report", "--since", since, "--json"])
                #expect(result.status == 0, "\(result.standardError)")
                return try JSONOf.object(result.standardOutput)
            }
            func figures(_ report: [String: Any]) -> (media: Int, chunks: Int, latency: Int?, retried: Int?, cost: Double, succeededChunkJobs: Int?) {
                let throughput = report["throughput"] as? [[String: Any]] ?? []
                let queue = report["queue"] as? [[String: Any]] ?? []
                let failures = report["failures"] as? [[String: Any]] ?? []
                return (
                    throughput.reduce(0) { $0 + ($1["media_done"] as? Int ?? 0) }, throughput.reduce(0) { $0 + ($1["chunks_done"] as? Int ?? 0) },
                    (report["latency"] as? [String: Any])?["media"] as? Int, failures.first { $0["error_class"] as? String == "transient" }?["attempts"] as? Int,
                    (report["costs"] as? [[String: Any]] ?? []).reduce(0.0) { $0 + ($1["cost_usd"] as? Double ?? 0) },
                    queue.first { $0["kind"] as? String == "chunk" && $0["state"] as? String == "succeeded" }?["jobs"] as? Int)
            }
            let day = figures(try await report("1d"))
            #expect(day.media == 1 && day.chunks == 1 && day.latency == 1 && day.retried == 1 && day.succeededChunkJobs == 1)
            #expect(abs(day.cost - 0.01) < 1e-9)
            let week = figures(try await report("7d"))
            #expect(week.media == 2 && week.chunks == 2 && week.latency == 2 && week.retried == 2 && week.succeededChunkJobs == 2)
            #expect(abs(week.cost - 0.02) < 1e-9)

            // The same figures as the views give over the whole history.
            let viewMedia: Int = try await client.query("SELECT sum(media_done)::int AS n FROM steno_throughput").single().decode("n")
            let viewCost: Double = try await client.query("SELECT sum(cost_usd)::float8 AS c FROM steno_costs").single().decode("c")
            #expect(viewMedia == week.media)
            #expect(abs(viewCost - week.cost) < 1e-9)
            await client.shutdown()
        }
    }

    @Test("the reporting views are readable by the read-only steno_reporting role, which cannot change anything")
    func reportingRole() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            try await client.withConnection { connection in
                try await connection.query("SET ROLE steno_reporting")
                for view in ["steno_queue", "steno_progress", "steno_chapter_progress", "steno_throughput", "steno_latency", "steno_failures",
                             "steno_costs", "steno_worker_status"] {
                    try await connection.query("SELECT * FROM \(view) LIMIT 1", [])
                }
                await #expect(throws: PostgresError.self) {
                    try await connection.query("UPDATE media SET state = 'failed'")
                }
                try await connection.query("RESET ROLE")
            }
            await client.shutdown()
        }
    }
}
