import Foundation
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import StenoTestSupport
import StenoTranscription
import Synchronization
import Testing

@testable import StenoWorker

/// The worker against a real PostgreSQL, real FFmpeg, the fixture audiobook and a real backend
/// (steno-asr in-process, or the fault-injecting server for failures).
@Suite("Worker end to end", .serialized, .timeLimit(.minutes(5)))
struct WorkerEndToEndTests {
    private var bookPath: String { FixtureBook.file("book.m4b").path }

    @Test("transcribes the fixture book: expected words, increasing times inside chapters, no word doubled at chunk boundaries")
    func transcribesTheBook() async throws {
        let book = try FixtureBook.load()
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            let notified = Mutex<[String]>([])
            let listener = try PostgresListener(configuration: database.configuration, channels: [JobStore.Channel.media])
            let events = try await listener.events()
            let listening = Task {
                for try await event in events {
                    if case .notification(let notification) = event { notified.withLock { $0.append(notification.payload) } }
                }
            }
            defer { listening.cancel() }
            try await RunningASRBackend.with { asr in
                // One job at a time: the chunk plan and the words are the same in any order (steno-asr
                // decodes each request on its own), but one job at a time keeps this test's log in order.
                try await RunningWorker.with(database: database, backendURL: asr.baseURL, configure: { $0.concurrency = 1 }) { _ in
                    let mediaID = try await db.enqueue(bookPath)
                    let state = try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"])
                    let ended = try await db.mediaState(mediaID)
                    #expect(state == "succeeded", "media ended \(ended)")
                    try await poll(until: { notified.withLock { $0 }.contains(String(mediaID)) }, "NOTIFY steno_media '\(mediaID)'")

                    let chapters = try await db.chapters(mediaID)
                    #expect(chapters.count == book.chapters.count)
                    for (chapter, expected) in zip(chapters, book.chapters) {
                        #expect(chapter.state == "succeeded")
                        let chunks = try await db.count(
                            "SELECT count(*) FROM chunks WHERE chapter_id = $1 AND state = 'succeeded'", chapter.id)
                        #expect(chunks >= 2, "chapter \(chapter.index) has \(chunks) chunk(s); the test needs chunk boundaries")

                        let wer = WordErrorRate(reference: expected.text, hypothesis: chapter.text ?? "")
                        print("chapter \(chapter.index + 1) (\(chunks) chunks): WER \(String(format: "%.1f", wer.rate * 100)) % -- \(chapter.text ?? "")")
                        #expect(wer.rate < 0.35, "chapter \(chapter.index): \(wer)")

                        let segments = try await db.segments(ofChapter: chapter.id)
                        #expect(!segments.isEmpty)
                        #expect(segments.map(\.index) == Array(0..<segments.count))
                        var previousStart = chapter.start
                        var words: [WorkerTestDatabase.SegmentRow.Word] = []
                        for segment in segments {
                            #expect(segment.start >= previousStart, "segment \(segment.index) starts before the one before it")
                            #expect(segment.start <= segment.end)
                            #expect(segment.start >= chapter.start - 0.001 && segment.end <= chapter.end + 0.001,
                                    "segment \(segment.start)...\(segment.end) outside chapter \(chapter.start)...\(chapter.end)")
                            previousStart = segment.start
                            words += segment.words ?? []
                        }
                        #expect(words.map(\.word).joined(separator: " ") == chapter.text)
                        for (earlier, later) in zip(words, words.dropFirst()) {
                            #expect(earlier.start <= later.start, "word times run backwards: \(earlier) then \(later)")
                        }
                        try await expectNoDoubledWordsAtBoundaries(words, chapterID: chapter.id, reference: expected.text, db: db)
                    }
                }
            }
        }
    }

    /// Around every cut between neighbouring chunks, no word (or pair of words) follows itself
    /// unless the reference text says so.
    private func expectNoDoubledWordsAtBoundaries(
        _ words: [WorkerTestDatabase.SegmentRow.Word], chapterID: Int64, reference: String, db: WorkerTestDatabase
    ) async throws {
        let ranges = try await db.client.query(
            "SELECT start_seconds, end_seconds FROM chunks WHERE chapter_id = \(chapterID) AND state = 'succeeded' ORDER BY start_seconds"
        ).map { (try $0.decode("start_seconds", as: Double.self), try $0.decode("end_seconds", as: Double.self)) }
        let cuts = zip(ranges, ranges.dropFirst()).map { ($0.0.1 + $0.1.0) / 2 }
        let normalized = words.map { TranscriptMerger.normalized($0.word) }
        let referenceWords = reference.split(whereSeparator: \.isWhitespace).map { TranscriptMerger.normalized(String($0)) }
        let referencePairs = Set(zip(referenceWords, referenceWords.dropFirst()).map { "\($0) \($1)" })
        for cut in cuts {
            let near = words.indices.filter { abs((words[$0].start + words[$0].end) / 2 - cut) < 2.5 }
            for index in near where index + 1 < words.count {
                let doubled = normalized[index] == normalized[index + 1] && !referencePairs.contains("\(normalized[index]) \(normalized[index])")
                #expect(!doubled, "\"\(words[index].word)\" doubled near the cut at \(cut) s")
                if index + 3 < words.count {
                    let pairRepeated = normalized[index] == normalized[index + 2] && normalized[index + 1] == normalized[index + 3]
                    #expect(!pairRepeated, "\"\(words[index].word) \(words[index + 1].word)\" doubled near the cut at \(cut) s")
                }
            }
        }
    }

    @Test("running every job of a finished media again leaves one copy of every row and sends no audio twice")
    func jobsRunTwice() async throws {
        let backend = try FaultServer(replies: [])
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL) { _ in
                let mediaID = try await db.enqueue(bookPath)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"]) == "succeeded")
                let before = try await db.rowCounts(mediaID)
                let texts = try await db.chapters(mediaID).map(\.text)
                let requests = backend.requestCount
                #expect(before["chunks"]! >= 6)
                // One upload per chunk, and a second ask (at a higher temperature) only for a chunk
                // whose answer failed a gate: the fault server's one sentence is too many
                // characters for a chapter's last, shortest chunk.
                let uploaded = try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND uploaded", mediaID)
                let firstAsks = backend.requests.filter { $0.field("temperature") == nil }.count
                #expect(firstAsks == uploaded)
                #expect(requests - firstAsks == backend.requests.filter { $0.field("temperature") == "\(ChunkJobHandler.retryTemperature)" }.count)

                // As if every job's completion had been lost: all of them run again.
                try await client.query(
                    """
                    UPDATE jobs SET state = 'queued', run_at = now(), finished_at = NULL, max_attempts = attempt + 5
                    WHERE media_id = \(mediaID)
                    """)
                try await db.waitForQuietJobs(mediaID)
                #expect(try await db.rowCounts(mediaID) == before)
                #expect(try await db.chapters(mediaID).map(\.text) == texts)
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state <> 'succeeded'", mediaID) == 0)
                #expect(backend.requestCount == requests, "a finished chunk was sent to the backend again")
                #expect(try await db.mediaState(mediaID).state == "succeeded")
            }
        }
    }

    @Test("cancelling a media mid-upload aborts the request and ends its jobs cancelled at once, by the notice, not a later heartbeat")
    func cancelMidRun() async throws {
        // The backend reads every upload and never answers, until the client leaves.
        let backend = try FaultServer(replies: [], then: .hang)
        defer { backend.stop() }
        // The worker's clock never moves: no heartbeat after the first one falls due, so a
        // cancel that takes effect came through the `steno_cancel` notice, which is "at once".
        // The lease is long, as the database counts it on its own clock.
        let clock = ManualClock()
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL, configure: { $0.lease = .seconds(300) }, clock: clock
            ) { _ in
                let mediaID = try await db.enqueue(bookPath)
                try await poll(until: { backend.requestCount > 0 }, "a chunk reaching the backend")
                let running = try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND kind = 'chunk' AND state = 'running'", mediaID)
                #expect(running > 0)

                let outcome = try await AdminStore(client: client).cancel(mediaID: mediaID)
                #expect(outcome.flaggedRunningJobs > 0)
                try await db.waitForQuietJobs(mediaID, timeout: .seconds(60))

                #expect(try await db.mediaState(mediaID).state == "cancelled")
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state = 'cancelled'", mediaID) >= running)
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND state = 'failed'", mediaID) == 0)
                #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND state IN ('running', 'succeeded')", mediaID) == 0)
                // The aborted requests' connections close, and no request follows the cancel:
                // every job has ended, so nothing is left that could send one.
                let requests = backend.requestCount
                try await poll(until: { backend.openConnections == 0 }, "the aborted uploads' connections closing")
                #expect(backend.requestCount == requests)
            }
        }
    }

    @Test("a permanent backend error fails the chunk, its chapter and the media with the backend's reason")
    func permanentBackendError() async throws {
        let backend = try FaultServer(
            replies: [], then: .openAIError(400, message: "Invalid file format. Supported formats: flac, mp3", type: "invalid_request_error"))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL) { _ in
                let mediaID = try await db.enqueue(bookPath)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed"]) == "failed")
                let media = try await db.mediaState(mediaID)
                #expect(media.errorClass == "permanent")
                #expect(media.errorMessage?.contains("Invalid file format") == true, "media reason: \(media.errorMessage ?? "none")")
                let failedChapters = try await db.chapters(mediaID).filter { $0.state == "failed" }
                #expect(!failedChapters.isEmpty)
                #expect(failedChapters.allSatisfy { $0.errorClass == "permanent" && $0.errorMessage?.contains("Invalid file format") == true })
                let failedChunk = try await client.query(
                    "SELECT error_class, error_message FROM chunks WHERE media_id = \(mediaID) AND state = 'failed' LIMIT 1"
                ).single()
                #expect(try failedChunk.decode("error_class", as: String.self) == "permanent")
                #expect(try failedChunk.decode("error_message", as: String.self).contains("Invalid file format"))
                // Permanent means no retry: every failed chunk job used one attempt.
                try await db.waitForQuietJobs(mediaID)
                #expect(try await db.count(
                    "SELECT count(*) FROM jobs WHERE media_id = $1 AND kind = 'chunk' AND state = 'failed' AND attempt <> 1", mediaID) == 0)
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE media_id = $1 AND kind = 'merge'", mediaID) == 0)
            }
        }
    }

    @Test("a media's prompt and model go with every chunk of it, and only with its own")
    func promptAndModelPerMedia() async throws {
        let backend = try FaultServer(replies: [], then: .json(200, #"{"text":"Heard."}"#))
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL) { _ in
                let own = try await db.enqueue(bookPath, model: "gpt-4o-transcribe", prompt: "The Keeper, Lighthouse, quay.")
                #expect(try await db.waitForMedia(own, in: ["succeeded", "failed"]) == "succeeded")
                let plain = try await db.enqueue(bookPath)
                #expect(try await db.waitForMedia(plain, in: ["succeeded", "failed"]) == "succeeded")
                let chunks = try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND state = 'succeeded'", own)
                let requests = backend.requests
                #expect(requests.count == chunks * 2)
                let prompted = requests.filter { $0.field("prompt") == "The Keeper, Lighthouse, quay." }
                #expect(prompted.count == chunks)
                #expect(prompted.allSatisfy { $0.field("model") == "gpt-4o-transcribe" && $0.field("response_format") == "json" })
                let others = requests.filter { $0.field("prompt") == nil }
                #expect(others.count == chunks)
                #expect(others.allSatisfy { $0.field("model") != "gpt-4o-transcribe" })
                #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND model = 'gpt-4o-transcribe'", own) == chunks)
            }
        }
    }

    @Test("transient faults in front of steno-asr (503s and resets) give the same transcript as a clean run")
    func transientFaultsSameTranscript() async throws {
        // Each run gets a fresh steno-asr and one job at a time, so that both send it the same
        // requests in the same order (pocketsphinx carries state from one request to the next).
        let (clean, cleanRequests) = try await RunningASRBackend.with { asr in
            try await transcript(backendURL: asr.baseURL)
        }
        let (faulty, faultyRequests, proxied) = try await RunningASRBackend.with { asr in
            let proxy = try FlakyProxy.start(forwardingTo: asr.baseURL, faultEvery: 3)
            defer { proxy.stop() }
            let (lines, chunks) = try await transcript(backendURL: proxy.baseURL)
            return (lines, chunks, proxy.requestCount)
        }
        #expect(cleanRequests == faultyRequests)
        #expect(proxied > faultyRequests, "no fault was injected: \(proxied) requests for \(faultyRequests) chunks")
        #expect(faulty.map(\.text) == clean.map(\.text))
        #expect(faulty.count == clean.count)
        for (one, other) in zip(faulty, clean) {
            #expect(abs(one.start - other.start) <= 0.05 && abs(one.end - other.end) <= 0.05, "\(one) against \(other)")
        }
        #expect(!clean.isEmpty)
    }

    /// The chapter texts and segments of the fixture book transcribed through `backendURL`, and
    /// how many chunks were transcribed. Transient faults are retried by the client, quickly.
    private func transcript(backendURL: String) async throws -> (lines: [TranscriptLine], chunks: Int) {
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            return try await RunningWorker.with(
                database: database, backendURL: backendURL, configure: { $0.concurrency = 1 },
                configureBackend: {
                    $0.retry = TranscriptionRetryPolicy(maximumRetries: 3, backoff: RetryBackoff(base: .milliseconds(50), cap: .milliseconds(200), jitter: 0))
                }
            ) { _ in
                let mediaID = try await db.enqueue(bookPath)
                let state = try await db.waitForMedia(mediaID, in: ["succeeded", "failed"])
                #expect(state == "succeeded")
                var lines: [TranscriptLine] = []
                for chapter in try await db.chapters(mediaID) {
                    lines.append(TranscriptLine(start: chapter.start, end: chapter.end, text: chapter.text ?? ""))
                    for segment in try await db.segments(ofChapter: chapter.id) {
                        lines.append(TranscriptLine(start: segment.start, end: segment.end, text: segment.text))
                    }
                }
                return (lines, try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1", mediaID))
            }
        }
    }

    /// A chapter's text (times of the chapter) or one of its segments.
    struct TranscriptLine: Equatable {
        var start: Double
        var end: Double
        var text: String
    }
}
