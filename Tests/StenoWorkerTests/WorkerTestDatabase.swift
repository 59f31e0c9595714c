import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Reads the worker's results the way the CLI and reports do, with plain SQL.
struct WorkerTestDatabase {
    let client: PostgresClient

    /// Enqueues a media as `steno enqueue` does; returns its id.
    func enqueue(
        _ path: String, chapters: ChapterSelection = .all, model: String? = nil, prompt: String? = nil, tenant: String = NewMedia.defaultTenant,
        language: String? = nil, multilingual: Bool = false, translate: Bool = false, sourceObject: SourceObject? = nil
    ) async throws -> Int64 {
        var media = NewMedia(source: path, title: "fixture", language: language, model: model, chapters: chapters, prompt: prompt)
        media.sourceObject = sourceObject
        media.tenant = tenant
        media.multilingual = multilingual
        media.translate = translate
        let enqueued = try await AdminStore(client: client).enqueue([media], allowDuplicates: true)
        return enqueued[0].mediaID
    }

    func mediaState(_ id: Int64) async throws -> (state: String, errorClass: String?, errorMessage: String?) {
        let row = try await client.query("SELECT state, error_class, error_message FROM media WHERE id = \(id)").single()
        return (try row.decode("state"), try row.decode("error_class"), try row.decode("error_message"))
    }

    /// Polls until the media reaches one of `states`; the limit bounds a hang (the suites allow 5
    /// minutes a test), it times nothing. After `timeout` it fails with the media's progress and
    /// the end of the log of each of `processes`, which a failure in CI shows only there.
    @discardableResult
    func waitForMedia(
        _ id: Int64, in states: Set<String>, timeout: Duration = .seconds(280), processes: [WorkerProcess] = []
    ) async throws -> String {
        if let state = try await polled(within: timeout, {
            let state = try await mediaState(id).state
            return states.contains(state) ? state : nil
        }) {
            return state
        }
        let jobs = try await client.query(
            "SELECT kind, state, count(*) AS n FROM jobs WHERE media_id = \(id) GROUP BY 1, 2 ORDER BY 1, 2")
        let summary = try jobs.map { "\(try $0.decode("kind", as: String.self)) \(try $0.decode("state", as: String.self)): \(try $0.decode("n", as: Int.self))" }
        throw TestEnvironmentError(
            "media \(id) did not reach \(states.sorted()) within \(timeout); state \(try await mediaState(id)), jobs \(summary); unfinished:\n\(try await unfinished(id))\nworkers: \(try await workers())"
                + processes.map { "\nlog of \($0.id), its last 40 lines:\n" + $0.log.split(separator: "\n").suffix(40).joined(separator: "\n") }.joined())
    }

    /// Every worker's row as the fleet sees it: status, jobs in flight, the last heartbeat's age.
    func workers() async throws -> String {
        try await client.query(
            """
            SELECT id || ' ' || status || ' in flight ' || jobs_in_flight || ' beat ' || round(extract(epoch FROM now() - last_heartbeat_at)::numeric, 1) || ' s ago'
                   || coalesce(' ' || status_message, '') AS line
            FROM workers ORDER BY id
            """
        ).map { try $0.decode("line", as: String.self) }.joined(separator: "; ")
    }

    /// Every job, chapter and chunk of the media that has not finished, with what its attempts
    /// recorded: what a test prints when a media is left unfinished, to say where it stuck.
    func unfinished(_ id: Int64) async throws -> String {
        var lines: [String] = []
        for row in try await client.query(
            """
            SELECT 'job ' || j.id || ' ' || j.kind || ' ' || j.state || ' attempt ' || j.attempt || '/' || j.max_attempts
                   || ' chapter ' || coalesce(j.chapter_id::text, '-') || ' chunk ' || coalesce(j.chunk_id::text, '-')
                   || ' due in ' || round(extract(epoch FROM j.run_at - now())::numeric, 1) || ' s'
                   || ' lease ' || coalesce(j.lease_owner, '-') || ' ' || coalesce(round(extract(epoch FROM j.lease_expires_at - now())::numeric, 1)::text, '-')
                   || ' error ' || coalesce(j.error_class, '-') || ': ' || coalesce(j.error_message, '-')
                   || ' attempts [' || coalesce((SELECT string_agg(a.attempt || ' ' || a.outcome || ' ' || coalesce(a.worker, '-') || ' '
                        || coalesce(a.error_class, '-') || coalesce(' ' || a.answer_discarded, ''), '; ' ORDER BY a.attempt)
                        FROM job_attempts a WHERE a.job_id = j.id), '') || ']' AS line
            FROM jobs j WHERE j.media_id = \(id) AND j.state NOT IN ('succeeded', 'cancelled')
            UNION ALL
            SELECT 'chapter ' || c.id || ' #' || c.index || ' ' || c.state FROM chapters c
            WHERE c.media_id = \(id) AND c.state NOT IN ('succeeded', 'cancelled')
            UNION ALL
            SELECT 'chunk ' || k.id || ' chapter ' || k.chapter_id || ' ' || k.state
                   || ' held ' || coalesce(round(extract(epoch FROM k.answer_held_until - now())::numeric, 1)::text, '-')
            FROM chunks k WHERE k.media_id = \(id) AND k.state NOT IN ('succeeded', 'cancelled', 'split')
            """)
        {
            lines.append(try row.decode("line", as: String.self))
        }
        return lines.joined(separator: "\n")
    }

    /// Waits until the server has been up for `seconds`: a worker takes a missing liveness lock
    /// for a death only then (`RescuePolicy.startGrace`), and a test may start beside a young cluster.
    func waitForServerUptime(_ seconds: Double) async throws {
        try await poll(until: {
            try await client.query(
                "SELECT extract(epoch FROM now() - pg_postmaster_start_time())::float8 AS up").single().decode("up", as: Double.self) > seconds
        }, within: .seconds(seconds + 60), "the server up for \(seconds) s")
    }

    /// Waits until the worker has sent `count` more heartbeats: each beat also sets when the
    /// worker next claims, rescues and reads its notices, so a test that waits for two of them
    /// has given the worker its turns to act, without guessing a time for it. (The column is
    /// named `steno_test_beat`, so that statement counts can leave these reads out.)
    func waitForHeartbeats(_ count: Int, of workerID: String) async throws {
        for _ in 0..<count {
            let last: Double = try await client.query(
                "SELECT extract(epoch FROM last_heartbeat_at)::float8 AS steno_test_beat FROM workers WHERE id = \(workerID)").single().decode("steno_test_beat")
            try await poll(until: {
                try await client.query(
                    "SELECT extract(epoch FROM last_heartbeat_at)::float8 AS steno_test_beat FROM workers WHERE id = \(workerID)"
                ).single().decode("steno_test_beat", as: Double.self) > last
            }, "a heartbeat of worker \(workerID)")
        }
    }

    /// Waits until no job of the media is queued or running.
    func waitForQuietJobs(_ id: Int64, timeout: Duration = .seconds(120)) async throws {
        let quiet = try await polled(within: timeout) {
            try await count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state IN ('queued', 'running')", id) == 0 ? true : nil
        }
        if quiet == true { return }
        throw TestEnvironmentError("jobs of media \(id) were still active after \(timeout)")
    }

    func count(_ statement: String, _ id: Int64) async throws -> Int {
        try await client.query(statement, [id]).single().decode("count")
    }

    struct ChapterRow {
        var id: Int64
        var index: Int
        var start: Double
        var end: Double
        var state: String
        var text: String?
        var errorClass: String?
        var errorMessage: String?
    }

    func chapters(_ mediaID: Int64) async throws -> [ChapterRow] {
        try await client.query(
            "SELECT id, index, start_seconds, end_seconds, state, text, error_class, error_message FROM chapters WHERE media_id = \(mediaID) ORDER BY index"
        ).map { row in
            ChapterRow(
                id: try row.decode("id"), index: try row.decode("index"), start: try row.decode("start_seconds"),
                end: try row.decode("end_seconds"), state: try row.decode("state"), text: try row.decode("text"),
                errorClass: try row.decode("error_class"), errorMessage: try row.decode("error_message"))
        }
    }

    struct SegmentRow: Decodable {
        var index: Int
        var start: Double
        var end: Double
        var text: String
        var words: [Word]?

        struct Word: Decodable {
            var word: String
            var start: Double
            var end: Double
        }
    }

    func segments(ofChapter chapterID: Int64) async throws -> [SegmentRow] {
        try await client.query(
            "SELECT index, start_seconds, end_seconds, text, words::text AS words FROM segments WHERE chapter_id = \(chapterID) ORDER BY index"
        ).map { row in
            let words: String? = try row.decode("words")
            return SegmentRow(
                index: try row.decode("index"), start: try row.decode("start_seconds"), end: try row.decode("end_seconds"),
                text: try row.decode("text"),
                words: try words.map { try JSONDecoder().decode([SegmentRow.Word].self, from: Data($0.utf8)) })
        }
    }

    /// Rows per table for one media: what a second run must leave unchanged.
    func rowCounts(_ mediaID: Int64) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["chapters", "chunks", "segments", "jobs"] {
            // Table names come from the fixed list above.
            counts[table] = try await count("SELECT count(*) FROM \(table) WHERE media_id = $1", mediaID)
        }
        return counts
    }
}
