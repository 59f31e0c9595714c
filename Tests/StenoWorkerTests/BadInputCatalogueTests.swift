import Foundation
import StenoCore
import StenoPostgres
import StenoTestSupport
import Testing

/// Broken and hostile recordings through a real worker: each media ends, with a reason a person
/// can act on, and nothing is left half-made (no job or chunk running, no chapter unfinished).
@Suite("bad-input catalogue: the worker", .serialized, .timeLimit(.minutes(5)))
struct BadInputCatalogueTests {
    static var sharedMedia: URL { PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared/media") }

    @Test("broken files, special files and a missing URL each end their media with a reason, and leave nothing running")
    func brokenRecordings() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("steno-catalogue-fifo-\(getpid()).mp3").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let notFound = try FaultServer(replies: [], then: .json(404, #"{"error":"not here"}"#))
        defer { notFound.stop() }
        var sources: [(String, String)] = [
            ("empty file", FixtureBook.file("empty.mp3").path),
            ("text named .mp3", FixtureBook.file("not-audio.mp3").path),
            ("video without audio", FixtureBook.file("silent-video.mp4").path),
            ("truncated download", FixtureBook.file("truncated.m4b").path),
            ("a FIFO", fifo),
            ("a device", "/dev/zero"),
            ("a missing file", "/nonexistent/book.m4b"),
            ("a URL answering 404", notFound.baseURL + "/book.m4b"),
        ]
        for name in ["emptyfile.mp3", "bad-xing.mp3", "toc_many_children.mp3"] {
            let path = Self.sharedMedia.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path) { sources.append(("shared \(name)", path)) }
        }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningASRBackend.with { asr in
                try await RunningWorker.with(database: database, backendURL: asr.baseURL) { _ in
                    var ids: [(String, Int64)] = []
                    for (name, source) in sources { ids.append((name, try await db.enqueue(source))) }
                    for (name, id) in ids {
                        let state = try await db.waitForMedia(id, in: ["succeeded", "failed", "cancelled"], timeout: .seconds(120))
                        try await db.waitForQuietJobs(id)
                        let ended = try await db.mediaState(id)
                        print("catalogue: \(name) -> \(state): \(ended.errorClass ?? "-") \(ended.errorMessage ?? "")")
                        if state == "failed" {
                            #expect(ended.errorClass != nil, "\(name): failed without a class")
                            #expect(ended.errorMessage?.isEmpty == false, "\(name): failed without a reason")
                            #expect(ended.errorMessage?.contains("backend") != true, "\(name): a media problem blamed on the backend: \(ended)")
                        }
                        let running = try await db.count(
                            """
                            SELECT (SELECT count(*) FROM jobs WHERE media_id = $1 AND state IN ('queued', 'running'))
                                 + (SELECT count(*) FROM chunks WHERE media_id = $1 AND state IN ('queued', 'running'))
                                 + (SELECT count(*) FROM chapters WHERE media_id = $1 AND state NOT IN ('succeeded', 'failed', 'cancelled'))
                                 AS count
                            """, id)
                        #expect(running == 0, "\(name): \(running) jobs, chunks or chapters left unfinished")
                    }
                    // The ones that cannot be read at all fail; none of them may pass as a transcript.
                    for (name, id) in ids where !name.hasPrefix("shared bad-xing") {
                        #expect(try await db.mediaState(id).state == "failed", "\(name) did not fail")
                    }
                    let notFoundState = try await db.mediaState(ids.first { $0.0 == "a URL answering 404" }!.1)
                    #expect(notFoundState.errorMessage?.contains("404") == true, "\(notFoundState)")
                    let attempts = try await db.count(
                        "SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE j.media_id = $1",
                        ids.first { $0.0 == "a URL answering 404" }!.1)
                    #expect(attempts == 1, "a 404 from the source was retried \(attempts - 1) times")
                }
            }
        }
    }
}
