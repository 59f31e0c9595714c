import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoObjectStore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoWorker

/// A worker that shares no volume with whoever stored the recording: it reads the book from
/// SeaweedFS through signed links (ranged GETs through the m4b's sample tables and chapters).
@Suite("Worker reading media from the object store", .serialized, .enabled(if: RunningObjectStore.isAvailable, "SeaweedFS is not set up: run scripts/seaweedfs"),
    .timeLimit(.minutes(5)))
struct ObjectStoreEndToEndTests {
    static func store(_ server: RunningObjectStore) throws -> ObjectStore {
        ObjectStore(try #require(try ObjectStoreConfiguration.fromEnvironment(server.environment)))
    }

    @Test("the fixture book in the store is transcribed chapter by chapter, as it is from disk; a missing object, and one replaced since it was enqueued, fail their media saying so")
    func bookFromTheStore() async throws {
        let book = try FixtureBook.load()
        let server = try await RunningObjectStore.start()
        let objects = try Self.store(server)
        let stored = try await objects.upload(fileAt: FixtureBook.file("book.m4b").path, as: objects.newUploadKey(fileExtension: ".m4b"))
        #expect(stored.size == Int64(try Data(contentsOf: FixtureBook.file("book.m4b")).count))
        #expect(stored.etag?.isEmpty == false, "the store gave the object an entity tag")
        // Enqueued as this book, then replaced in the store by another recording.
        let replaced = try await objects.upload(fileAt: FixtureBook.file("book.m4b").path, as: objects.newUploadKey(fileExtension: ".m4b"))
        try await objects.put(replaced.key, Array(try Data(contentsOf: FixtureBook.file("book.mp3"))))
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningASRBackend.with { asr in
                try await RunningWorker.with(database: database, backendURL: asr.baseURL, configure: { $0.mediaSources = MediaSources(store: objects) }) { _ in
                    let mediaID = try await db.enqueue(
                        objects.address(of: stored.key).description, sourceObject: SourceObject(size: stored.size, etag: stored.etag, sha256: stored.sha256))
                    let changed = try await db.enqueue(
                        objects.address(of: replaced.key).description,
                        sourceObject: SourceObject(size: replaced.size, etag: replaced.etag, sha256: replaced.sha256))
                    let missing = try await db.enqueue("s3://\(server.bucket)/uploads/never-stored.m4b")
                    let foreign = try await db.enqueue("s3://another-bucket/book.m4b")
                    let ended = try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"])
                    let endedState = try await db.mediaState(mediaID)
                    #expect(ended == "succeeded", "\(endedState)")
                    let chapters = try await db.chapters(mediaID)
                    #expect(chapters.count == book.chapters.count)
                    for (chapter, expected) in zip(chapters, book.chapters) {
                        let wer = WordErrorRate(reference: expected.text, hypothesis: chapter.text ?? "")
                        #expect(wer.rate < 0.35, "chapter \(chapter.index): \(wer)")
                    }
                    #expect(try await db.waitForMedia(missing, in: ["succeeded", "failed", "cancelled"]) == "failed")
                    let missingState = try await db.mediaState(missing)
                    #expect(missingState.errorMessage?.contains("is not in the object store") == true, "\(missingState)")
                    #expect(try await db.waitForMedia(changed, in: ["succeeded", "failed", "cancelled"]) == "failed")
                    let changedState = try await db.mediaState(changed)
                    #expect(changedState.errorMessage?.contains("is not the one enqueued") == true, "\(changedState)")
                    #expect(changedState.errorClass == "media", "\(changedState)")
                    #expect(missingState.errorMessage?.contains("X-Amz-Signature") == false, "a signed link never reaches a row")
                    #expect(try await db.waitForMedia(foreign, in: ["succeeded", "failed", "cancelled"]) == "failed")
                    let foreignState = try await db.mediaState(foreign)
                    #expect(foreignState.errorMessage?.contains("another-bucket") == true, "\(foreignState)")
                }
            }
        }
    }

    @Test("the store stopped mid-run: the jobs wait for it with their tries given back, every media succeeds once it is back, and no chunk is paid twice")
    func storeOutageIsWaitedOut() async throws {
        let server = try await RunningObjectStore.start()
        let objects = try Self.store(server)
        let stored = try await objects.upload(fileAt: FixtureBook.file("book.m4b").path, as: objects.newUploadKey(fileExtension: ".m4b"))
        let backend = try FaultServer(replies: [])
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(
                database: database, backendURL: backend.baseURL,
                configure: {
                    $0.mediaSources = MediaSources(store: objects)
                    $0.planner.targetDuration = MediaTime(seconds: 4)
                    $0.concurrency = 2
                }
            ) { _ in
                let source = objects.address(of: stored.key).description
                let ids = [
                    try await db.enqueue(source, sourceObject: SourceObject(size: stored.size, etag: stored.etag)),
                    try await db.enqueue(source, sourceObject: SourceObject(size: stored.size, etag: stored.etag)),
                ]
                // Mid-run: some chunk answered, not all.
                let answered = try await polled { try await db.count("SELECT count(*) FROM chunks WHERE state = 'succeeded' AND $1 > 0", 1) > 0 ? true : nil }
                try #require(answered == true, "no chunk was answered")
                try await server.kill()
                // The jobs meet the outage: more of them than a job has attempts (5), each given back.
                let waited = try await polled(within: .seconds(120)) {
                    let n = try await db.count(
                        "SELECT count(*) FROM job_attempts WHERE outcome = 'released' AND message LIKE '%object store%' AND $1 > 0", 1)
                    return n >= 8 ? n : nil
                }
                try #require(waited != nil, "the jobs never met the store's outage")
                #expect(try await db.count("SELECT count(*) FROM jobs WHERE state = 'failed' AND $1 > 0", 1) == 0, "a job failed during the outage")
                try await server.restart()
                for id in ids {
                    #expect(try await db.waitForMedia(id, in: ["succeeded", "failed", "cancelled"], timeout: .seconds(180)) == "succeeded")
                }
                let chunks = try await db.count("SELECT count(*) FROM chunks WHERE state = 'succeeded' AND uploaded AND $1 > 0", 1)
                let firstAsks = backend.requests.filter { $0.field("temperature") == nil }.count
                #expect(firstAsks == chunks, "\(firstAsks) first asks for \(chunks) chunks: a chunk was paid twice")
            }
        }
    }

    @Test("a worker whose store secret is wrong holds the media back with one error naming the setting, and fails none")
    func wrongSecretPausesInsteadOfFailing() async throws {
        let server = try await RunningObjectStore.start()
        let objects = try Self.store(server)
        let stored = try await objects.upload(fileAt: FixtureBook.file("clip-2s.flac").path, as: objects.newUploadKey(fileExtension: ".flac"))
        var environment = server.environment
        let wrong = TestSecret.make("wrong-s3")
        environment["STENO_S3_SECRET_ACCESS_KEY"] = wrong
        let misconfigured = ObjectStore(try #require(try ObjectStoreConfiguration.fromEnvironment(environment)))
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningASRBackend.with { asr in
                try await RunningWorker.with(database: database, backendURL: asr.baseURL, configure: { $0.mediaSources = MediaSources(store: misconfigured) }) { _ in
                    let ids = [try await db.enqueue(objects.address(of: stored.key).description), try await db.enqueue(objects.address(of: stored.key).description)]
                    for id in ids {
                        let held = try await polled(within: .seconds(60)) { () async throws -> String? in
                            let rows = try await client.query(
                                "SELECT error_class, error_message FROM jobs WHERE media_id = \(id) AND error_class IS NOT NULL AND state = 'queued'")
                            return try rows.first?.decode("error_message", as: String?.self)
                        }
                        let message = try #require(held, "media \(id)'s job was not held back")
                        #expect(message.contains("STENO_S3_SECRET_ACCESS_KEY") && !message.contains(wrong) && !message.contains(server.secretKey), "\(message)")
                        let row = try await client.query("SELECT error_class FROM jobs WHERE media_id = \(id)").single()
                        #expect(try row.decode("error_class", as: String?.self) == "configuration")
                        #expect(try await db.mediaState(id).state != "failed")
                    }
                }
            }
        }
    }
}
