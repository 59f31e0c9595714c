import Foundation
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoWorker
import StenoTranscription

/// Failure classes, leases and shutdown, against a real PostgreSQL, FFmpeg and the
/// fault-injecting backend.
@Suite("Worker failures, leases and shutdown", .serialized, .timeLimit(.minutes(5)))
struct WorkerFailureTests {
    private var bookPath: String { FixtureBook.file("book.m4b").path }

    @Test("a file that is not audio fails the media at once with a plain reason")
    func mediaError() async throws {
        let backend = try FaultServer(replies: [])
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL) { _ in
                let mediaID = try await db.enqueue(FixtureBook.file("not-audio.mp3").path)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(30)) == "failed")
                let media = try await db.mediaState(mediaID)
                #expect(media.errorClass == "media")
                #expect(!(media.errorMessage ?? "").isEmpty)
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state = 'failed' AND attempt = 1", mediaID) == 1)
                #expect(try await db.count("SELECT count(*) FROM chapters WHERE media_id = $1", mediaID) == 0)
                #expect(backend.requestCount == 0)
            }
        }
    }

    @Test("only the selected chapters are transcribed")
    func chapterSelection() async throws {
        let backend = try FaultServer(replies: [])
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL) { _ in
                let mediaID = try await db.enqueue(bookPath, chapters: .numbers([2]))
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(60)) == "succeeded")
                let chapters = try await db.chapters(mediaID)
                #expect(chapters.map(\.index) == [1])
                #expect(chapters.first?.state == "succeeded")
            }
        }
    }

    @Test("transient backend errors requeue the chunk with a delay and the media still succeeds")
    func transientErrorsRetry() async throws {
        // The first three requests fail with 503; the client retries nothing itself, so each is a job attempt.
        let backend = try FaultServer(replies: Array(repeating: .openAIError(503, message: "overloaded", type: "server_error"), count: 3))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL, configureBackend: { $0.retry.maximumRetries = 0 }
            ) { _ in
                let mediaID = try await db.enqueue(bookPath)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(90)) == "succeeded")
                let retried = try await db.count(
                    """
                    SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id
                    WHERE j.media_id = $1 AND a.outcome = 'retry' AND a.error_class = 'transient' AND a.http_status = 503
                    """,
                    mediaID)
                #expect(retried == 3)
                #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND state <> 'succeeded'", mediaID) == 0)
            }
        }
    }

    @Test("a rejected key pauses chunk claims with a workers status instead of failing the queue")
    func configurationErrorPauses() async throws {
        let backend = try FaultServer(replies: [], then: .openAIError(401, message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key"))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL, configure: { $0.configurationPause = .seconds(60) }
            ) { worker in
                let mediaID = try await db.enqueue(bookPath)
                // The body starts once the HTTP port is up; the row comes when the worker has
                // checked the schema and registered, a moment later.
                let status = try await polled {
                    try await client.query("SELECT status FROM workers WHERE id = \(worker.runtime.configuration.workerID)")
                        .first?.decode("status", as: String.self) == "paused" ? "paused" : nil
                }
                #expect(status == "paused")
                let paused: String = try await client.query(
                    "SELECT paused_backends::text AS paused FROM workers WHERE id = \(worker.runtime.configuration.workerID)"
                ).single().decode("paused")
                #expect(paused.contains("test-backend"))
                // Give the worker its turns to (wrongly) burn through the queue: a wake-up for the
                // claimer, and two heartbeats, each of which sets its next claim; then check it did not.
                let requests = backend.requestCount
                try await client.query("SELECT pg_notify('steno_jobs', '')")
                try await db.waitForHeartbeats(2, of: worker.runtime.configuration.workerID)
                #expect(backend.requestCount == requests, "chunk jobs were still sent while paused")
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state = 'failed'", mediaID) == 0)
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND kind = 'chunk' AND state = 'queued'", mediaID) > 0)
                #expect(try await db.mediaState(mediaID).state == "transcribing")
            }
        }
    }

    @Test("a job whose worker vanished is rescued after its lease and finished once by another worker")
    func rescueAfterLostWorker() async throws {
        let backend = try FaultServer(replies: [])
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            let mediaID = try await db.enqueue(bookPath)
            // A worker claims the media job with a one-second lease and dies without a word.
            let claimed = try await JobStore(client: client).claim(limit: 1, worker: "vanished-worker", lease: .seconds(1))
            #expect(claimed.count == 1)
            let state = try await RunningWorker.with(database: database, backendURL: backend.baseURL) { _ in
                try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(60))
            }
            #expect(state == "succeeded")
            let attempts = try await JobStore(client: client).attempts(ofJob: claimed[0].id)
            #expect(attempts.map(\.outcome) == [.leaseExpired, .succeeded])
            #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND kind = 'chapter'", mediaID) == 3)
        }
    }

    @Test("graceful shutdown hands running jobs back to the queue at once and marks the worker stopped")
    func gracefulShutdownReleases() async throws {
        let backend = try FaultServer(replies: [], then: .hang)
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            var workerID = ""
            var mediaID: Int64 = 0
            // The backend hangs: only the drain's hand-back ends the shutdown (the suite's time
            // limit bounds a hang), and the jobs it held are queued again below.
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: { $0.gracePeriod = .milliseconds(500) }) { worker in
                workerID = worker.runtime.configuration.workerID
                mediaID = try await db.enqueue(bookPath)
                try await poll(until: { backend.requestCount > 0 }, "a chunk's upload")
            }
            #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state = 'running'", mediaID) == 0)
            #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND kind = 'chunk' AND state = 'queued'", mediaID) > 0)
            #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state = 'failed'", mediaID) == 0)
            let released = try await db.count(
                "SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE j.media_id = $1 AND a.outcome = 'released'", mediaID)
            #expect(released > 0)
            let status: String = try await client.query("SELECT status FROM workers WHERE id = \(workerID)").single().decode("status")
            #expect(status == "stopped")
        }
    }
}

extension WorkerFailureTests {
    @Test("a chunk that encodes over the upload limit is split into chunks of its own, never sent as is")
    func tooLargeChunksSplit() async throws {
        let backend = try FaultServer(replies: [])
        defer { backend.stop() }
        let limit = 60_000
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL,
                configure: {
                    // The planner expects far fewer bytes than FLAC makes, so planned chunks come out too large.
                    $0.planner.maxUploadBytes = limit
                    $0.planner.estimatedBytesPerSecond = 4_000
                }
            ) { _ in
                let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path, chapters: .numbers([1]))
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(90)) == "succeeded")
                #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND state = 'split'", mediaID) > 0)
                #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND state NOT IN ('split', 'succeeded')", mediaID) == 0)
                let sent = backend.requests.compactMap { $0.parts.first { $0.name == "file" }?.body.count }
                #expect(!sent.isEmpty)
                #expect(sent.allSatisfy { $0 <= limit }, "uploads of \(sent.max() ?? 0) bytes passed the \(limit)-byte limit")
                let stored = try await db.count(
                    "SELECT count(*) FROM chunks WHERE media_id = $1 AND state = 'succeeded' AND uploaded AND encoded_bytes <= \(limit)", mediaID)
                // Each stored chunk was sent once; a second ask at a higher temperature comes only
                // after an answer failed a gate (the fault server's sentence on a short piece).
                let firstAsks = backend.requests.filter { $0.field("temperature") == nil }.count
                #expect(stored == firstAsks)
            }
        }
    }
}

extension WorkerFailureTests {
    @Test("a chunk whose worker died under it twice from outside is cut in two before it is tried again; one whose worker crashed is not")
    func dyingChunksAreCut() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            let mediaID = try await db.enqueue(FixtureBook.file("book.m4b").path)
            // Planned by a first worker whose backend never answers; its shutdown hands the
            // chunk jobs back, queued.
            let hanging = try FaultServer(replies: [], then: .hang)
            try await RunningWorker.with(
                database: database, backendURL: hanging.baseURL,
                configure: {
                    $0.planner.targetDuration = MediaTime(seconds: 20)
                    $0.gracePeriod = .milliseconds(200)
                }
            ) { _ in
                let planned = try await polled {
                    let n = try await db.count("SELECT count(*) FROM chapters WHERE media_id = $1 AND state = 'transcribing'", mediaID)
                    return n == 3 ? n : nil
                }
                try #require(planned == 3, "the chapters were never planned")
            }
            hanging.stop()
            let lengths: [(job: Int64, seconds: Double)] = try await client.query(
                """
                SELECT j.id, k.end_seconds - k.start_seconds AS seconds FROM jobs j JOIN chunks k ON k.id = j.chunk_id
                WHERE j.media_id = \(mediaID) AND j.kind = 'chunk' AND j.state = 'queued' ORDER BY j.id
                """
            ).map { (try $0.decode("id"), try $0.decode("seconds")) }
            try #require(lengths.count == 3 && lengths.allSatisfy { $0.seconds >= 8 }, "three chunks of a chapter each: \(lengths)")
            // Each died with its worker twice, from outside (rescue's bookkeeping); the last one's
            // second death was a crash of the process.
            try await client.query("UPDATE jobs SET crash_rescues = 2 WHERE id = ANY(\(lengths.map(\.job)))")
            let crashed = lengths[2].job
            try await client.query(
                """
                INSERT INTO job_attempts (job_id, attempt, worker, finished_at, outcome, worker_exit, crashed)
                SELECT id, attempt + n, 'gone', now(), 'worker_died', exit, exit = 'SIGSEGV'
                FROM jobs, (VALUES (1, 'SIGKILL'), (2, 'SIGSEGV')) AS deaths(n, exit)
                WHERE id = \(crashed)
                """)
            try await client.query("UPDATE jobs SET attempt = attempt + 2 WHERE id = \(crashed)")

            let backend = try FaultServer(replies: [])
            defer { backend.stop() }
            let ended = try await RunningWorker.with(
                database: database, backendURL: backend.baseURL, configure: { $0.planner.targetDuration = MediaTime(seconds: 20) }
            ) { _ in
                try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(90))
            }
            #expect(ended == "succeeded")
            let cut = try await db.count(
                "SELECT count(*) FROM chunks k JOIN jobs j ON j.chunk_id = k.id WHERE k.media_id = $1 AND k.state = 'split' AND j.id <> \(crashed)", mediaID)
            #expect(cut == 2, "the two chunks that died from outside were cut")
            let crashedChunk: String = try await client.query("SELECT k.state FROM chunks k JOIN jobs j ON j.chunk_id = k.id WHERE j.id = \(crashed)")
                .single().decode("state")
            #expect(crashedChunk == "succeeded", "the chunk whose worker crashed was tried whole")
            // Each cut chunk's pieces were answered; none is shorter than 3 s.
            let pieces: [Double] = try await client.query(
                """
                SELECT end_seconds - start_seconds AS seconds FROM chunks
                WHERE media_id = \(mediaID) AND state = 'succeeded' AND chapter_id IN (SELECT k.chapter_id FROM chunks k WHERE k.state = 'split')
                """
            ).map { try $0.decode("seconds") }
            #expect(pieces.count == 4 && pieces.allSatisfy { $0 >= RescuePolicy.shortestDyingPiece }, "\(pieces)")
        }
    }

    @Test("deleting a media mid-upload stops its jobs at once, by the notice, and leaves no rows behind")
    func deleteMidRun() async throws {
        let backend = try FaultServer(replies: [], then: .hang)
        defer { backend.stop() }
        // A worker clock that never moves: only the delete's notice can stop the jobs, since no
        // heartbeat falls due after the first (the database counts the long lease itself).
        let clock = ManualClock()
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL, configure: { $0.lease = .seconds(300) }, clock: clock
            ) { worker in
                let mediaID = try await db.enqueue(bookPath)
                try await poll(until: { backend.requestCount > 0 }, "a chunk reaching the backend")
                #expect(worker.runtime.jobsInFlight > 0)
                _ = try await AdminStore(client: client).delete(mediaID: mediaID)
                try await poll(until: { worker.runtime.jobsInFlight == 0 }, "the worker dropping the deleted media's jobs")
                for table in ["media", "chapters", "chunks", "segments", "jobs"] {
                    let column = table == "media" ? "id" : "media_id"
                    #expect(try await db.count("SELECT count(*) FROM \(table) WHERE \(column) = $1", mediaID) == 0, "rows left in \(table)")
                }
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE id > $1", 0) == 0, "orphan jobs left")
            }
        }
    }

    @Test("the chapter a listener is on, and the next one, get their jobs at high and medium priority")
    func focusPriorities() async throws {
        // Chunk jobs hang, so their priorities can be read while they wait.
        let backend = try FaultServer(replies: [], then: .hang)
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            let mediaID = try await db.enqueue(bookPath)
            // `steno focus 2` before any worker ran: stored on the media, applied as jobs appear.
            _ = try await AdminStore(client: client).focus(mediaID: mediaID, chapter: 2)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: { $0.concurrency = 1 }) { _ in
                try await poll(until: {
                    try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND kind = 'chapter' AND state = 'succeeded'", mediaID) >= 1
                }, "a chapter planned")
                let rows = try await client.query(
                    """
                    SELECT c.index, j.kind, max(j.priority) AS priority FROM jobs j JOIN chapters c ON c.id = j.chapter_id
                    WHERE j.media_id = \(mediaID) GROUP BY 1, 2 ORDER BY 1, 2
                    """)
                var priorities: [String: Int] = [:]
                for row in rows {
                    priorities["\(try row.decode("index", as: Int.self)) \(try row.decode("kind", as: String.self))"] = try row.decode("priority")
                }
                #expect(priorities["0 chapter"] == 0)
                #expect(priorities["1 chapter"] == 2)
                #expect(priorities["2 chapter"] == 1)
                // With one job at a time, the focused chapter is planned first and its chunks queue at high priority.
                #expect(priorities["1 chunk"] == 2)
                let firstPlanned: Int = try await client.query(
                    """
                    SELECT c.index FROM jobs j JOIN chapters c ON c.id = j.chapter_id
                    WHERE j.media_id = \(mediaID) AND j.kind = 'chapter' AND j.state = 'succeeded' ORDER BY j.finished_at LIMIT 1
                    """
                ).single().decode("index")
                #expect(firstPlanned == 1)
            }
        }
    }
}

extension WorkerFailureTests {
    @Test("the completion webhook is called once per media, and retried when it fails")
    func webhookOncePerMedia() async throws {
        let backend = try FaultServer(replies: [])
        defer { backend.stop() }
        let hook = try FaultServer(replies: [.json(500, #"{"error":"not now"}"#)], then: .json(200, "{}"))
        defer { hook.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL, configure: { $0.webhookURL = "\(hook.baseURL)/steno-done" }
            ) { worker in
                let mediaID = try await db.enqueue(bookPath, chapters: .first)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"], timeout: .seconds(60)) == "succeeded")
                try await poll(until: {
                    try await db.count("SELECT count(*) FROM media WHERE id = $1 AND notified_at IS NOT NULL", mediaID) == 1
                }, "the media marked notified")
                // Once more after the worker has read its notices again (each heartbeat sets when):
                // still exactly two calls (the 500 and the 200).
                try await db.waitForHeartbeats(2, of: worker.runtime.configuration.workerID)
                let requests = hook.requests
                #expect(requests.count == 2)
                #expect(requests.allSatisfy { $0.head.path == "/steno-done" })
                let body = String(decoding: requests.last?.body ?? [], as: UTF8.self)
                #expect(body.contains("\"media_id\":\(mediaID)"), "webhook body: \(body)")
                #expect(body.contains("\"state\":\"succeeded\""), "webhook body: \(body)")
            }
        }
    }
}
