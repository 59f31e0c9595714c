import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

/// The reporting queries `docs/operations.md` shows ("Reports with SQL"), run against a library
/// the test-data builder fills. With `STENO_README_REPORT_OUTPUT=FILE`, they are written there
/// with their `psql` output, in the page's format, to paste into it. (The type and the variable
/// keep their names from when the queries were in the README.)
@Suite("reporting queries of docs/operations.md")
struct ReadmeReportQueriesTests {
    /// The page that shows the queries.
    static let page = "docs/operations.md"

    static let queries: [(title: String, sql: String)] = [
        ("Queue depth by job kind and state", """
            SELECT kind, state, jobs, ready, delayed, oldest_age_seconds
            FROM steno_queue ORDER BY kind, state;
            """),
        ("Media in progress, with percent done and projected cost", """
            SELECT media_id, title, stage, percent, chapters_done || '/' || chapters AS chapters,
                   attempts, cost_usd, estimated_cost_usd
            FROM steno_progress WHERE state IN ('queued', 'probing', 'transcribing') ORDER BY media_id;
            """),
        ("Throughput: media and audio hours finished per hour, last 24 hours", """
            SELECT hour, media_done, media_audio_hours, chunks_done, chunk_audio_hours
            FROM steno_throughput WHERE hour > now() - interval '24 hours' ORDER BY hour;
            """),
        ("Time from enqueue to done, p50 and p95 per day", """
            SELECT finished_at::date AS day, count(*) AS media,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY enqueue_to_done_seconds)::numeric / 60, 1) AS p50_minutes,
                   round(percentile_cont(0.95) WITHIN GROUP (ORDER BY enqueue_to_done_seconds)::numeric / 60, 1) AS p95_minutes,
                   round(avg(speed_factor)::numeric, 1) AS times_realtime
            FROM steno_latency WHERE state = 'succeeded' GROUP BY 1 ORDER BY 1;
            """),
        ("Failures by class and job kind, last 24 hours", """
            SELECT error_class, kind, sum(attempts) AS attempts, sum(final) AS failed_for_good,
                   (array_agg(last_message ORDER BY hour DESC))[1] AS last_message
            FROM steno_failures WHERE hour > now() - interval '24 hours'
            GROUP BY error_class, kind ORDER BY attempts DESC, error_class;
            """),
        ("Cost by day and model", """
            SELECT day, model, backend, chunks, audio_hours, cost_usd, usd_per_audio_hour
            FROM steno_costs ORDER BY day, model;
            """),
    ]

    /// A small library: a book half transcribed with a failed chapter, lectures finished over
    /// the last hours on two models, a recording that could not be read, one still queued.
    static func fill(_ client: PostgresClient) async throws {
        try await TestMediaBuilder.insert(Library.transcribing(), into: client)
        let lectures: [(String, Double, Double, String, Double)] = [
            ("Lecture 1: Sound", 3 * 3600 + 900, 3 * 3600 - 1200, "whisper-1", 0.006),
            ("Lecture 2: Waves", 2 * 3600 + 600, 2 * 3600 - 300, "whisper-1", 0.006),
            ("Lecture 3: Light", 3600 + 1500, 3600 - 600, "gpt-4o-transcribe", 0.006),
            ("Lecture 4: Colour", 1200, 120, "gpt-4o-mini-transcribe", 0.003),
        ]
        for (index, lecture) in lectures.enumerated() {
            let (title, createdAgo, finishedAgo, model, rate) = lecture
            var chunks: [TestMediaBuilder.Chunk] = []
            for part in 0..<6 {
                let start = Double(part) * 600
                let finished: Double = finishedAgo + Double(5 - part) * 90
                chunks.append(TestMediaBuilder.Chunk(start, start + 600, costUSD: rate * 10, model: model, attempts: part == 2 ? 2 : 1, finishedAgo: finished))
            }
            try await TestMediaBuilder.insert(
                .init("/srv/media/lectures/\(index + 1).mp3", title: title, state: "succeeded", createdAgo: createdAgo, finishedAgo: finishedAgo,
                      chapters: [.init(nil, 0, 3600, chunks: chunks)]),
                into: client)
        }
        try await TestMediaBuilder.insert(Library.failedAtProbe(source: "/srv/media/lectures/5.mp3"), into: client)
        try await TestMediaBuilder.insert(.init("/srv/media/lectures/6.mp3", title: "Lecture 6: Heat", state: "queued", createdAgo: 30), into: client)
    }

    @Test("each query appears in docs/operations.md as written here: its title, then the SQL in a sql block")
    func queriesAreDocumented() throws {
        let text = try String(contentsOf: PackageRoot.url.appendingPathComponent(Self.page), encoding: .utf8)
        for query in Self.queries {
            #expect(text.contains("\(query.title):\n\n```sql\n\(query.sql)\n```\n"), "\(Self.page) does not show \"\(query.title)\" as this test runs it")
        }
    }

    @Test("each documented query runs against the views and returns rows")
    func queries() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            try await Self.fill(client)
            for query in Self.queries {
                let rows = try await client.query(query.sql, [])
                #expect(!rows.isEmpty, "\(query.title)")
            }
            if let output = ProcessInfo.processInfo.environment["STENO_README_REPORT_OUTPUT"], !output.isEmpty {
                try await writePSQLOutput(to: output, database: database)
            }
            await client.shutdown()
        }
    }

    private func writePSQLOutput(to path: String, database: TestDatabase) async throws {
        let candidates = ["/usr/bin/psql"] + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).map { "/usr/lib/postgresql/\($0)/bin/psql" }
        let psql = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "psql")
        var markdown = ""
        for query in Self.queries {
            let result = try await ChildProcess.run(psql, [database.configuration.connectionString, "-X", "-P", "footer=off", "-c", query.sql])
            #expect(result.status == 0, "\(result.standardError)")
            markdown += "\(query.title):\n\n```sql\n\(query.sql)\n```\n\n```\n\(result.standardOutput.trimmingCharacters(in: .newlines))\n```\n\n"
        }
        try markdown.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
