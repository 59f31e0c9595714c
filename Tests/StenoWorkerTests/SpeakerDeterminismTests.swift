import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// The same recording gets the same transcript, speakers included, whatever the fleet did: one
/// worker taking every job in turn, or four taking them at once in any order with two of them
/// killed with `kill -9` mid-way. Each chapter's speakers depend on its own audio alone, and the
/// media's final numbers (by first appearance) are given once every chapter is in.
@Suite("Speakers: the same labels whatever the fleet did", .serialized, .timeLimit(.minutes(5)))
struct SpeakerDeterminismTests {
    /// The four synthetic voices of `synth-four` as a book of three chapters, cut mid-talk.
    static func book() async throws -> URL {
        let conversation = FixtureBook.directory.appendingPathComponent("speakers/synth-four.flac")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("steno-speaker-book-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let metadata = folder.appendingPathComponent("chapters.txt")
        try """
            ;FFMETADATA1
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=18500
            title=One
            [CHAPTER]
            TIMEBASE=1/1000
            START=18500
            END=37000
            title=Two
            [CHAPTER]
            TIMEBASE=1/1000
            START=37000
            END=56000
            title=Three

            """.write(to: metadata, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("four-voices.m4b")
        let made = try await ChildProcess.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-i", conversation.path, "-i", metadata.path, "-map_metadata", "1", "-map_chapters", "1",
             "-c:a", "aac", "-b:a", "96k", "-fflags", "+bitexact", output.path])
        try #require(made.status == 0, "\(made.standardError)")
        return output
    }

    /// Every export of the book after `workers` process workers transcribed it, `kills` of them
    /// killed with `kill -9` (supervisor and worker) once the fleet had stored some answers, each
    /// replaced at once.
    static func run(_ book: URL, workers count: Int, kills: Int) async throws -> [TranscriptFormat: String] {
        let backend = try SpeakerEndToEndTests.wordClock()
        defer { backend.stop() }
        let database = try await TestDatabase.create(migrated: true)
        let client = database.client()
        defer { Task { await client.shutdown() } }
        let environment = [
            "STENO_DATABASE_URL": database.configuration.connectionString,
            "STENO_BACKEND_URL": backend.baseURL,
            "STENO_CHUNK_SECONDS": "6",
            "STENO_WORKER_CONCURRENCY": "2",
            "STENO_WORKER_LEASE_SECONDS": "2",
            "STENO_WORKER_GRACE_SECONDS": "2",
            "STENO_WORKER_HTTP_PORT": "0",
            "STENO_LOG_LEVEL": "warning",
            "STENO_RECOVER_SPEECH": "off",
            "STENO_WORKER_QUARANTINE_MAX_SECONDS": "1",
            "STENO_WORKER_RETRY_DELAY_SECONDS": "0.5",
            "STENO_WORKER_RETRY_DELAY_MAX_SECONDS": "1",
            "SWIFT_BACKTRACE": "enable=no",
        ]
        var serial = 0
        func start() throws -> WorkerProcess {
            serial += 1
            return try WorkerProcess(id: "speakers-\(count)-\(serial)", environment: environment)
        }
        var fleet = try (0..<count).map { _ in try start() }
        let db = WorkerTestDatabase(client: client)
        let mediaID = try await db.enqueue(book.path)
        for kill in 0..<kills {
            // Kills land once the fleet has stored answers, while it still has work in hand.
            let stored = (kill + 1) * 3
            _ = try await polled(within: .seconds(120)) {
                try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND state = 'succeeded'", mediaID) >= stored ? true : nil
            }
            let busy = try await client.query(
                "SELECT DISTINCT lease_owner FROM jobs WHERE media_id = \(mediaID) AND state = 'running' AND lease_owner IS NOT NULL"
            ).map { try $0.decode("lease_owner", as: String.self) }
            let victim = fleet.firstIndex { busy.contains($0.id) } ?? 0
            fleet[victim].signalAll(SIGKILL)
            fleet[victim] = try start()
        }
        #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"], processes: fleet) == "succeeded")
        let admin = AdminStore(client: client)
        let source = try await admin.transcriptSource(mediaID: mediaID)
        var exports: [TranscriptFormat: String] = [:]
        for format in TranscriptFormat.allCases {
            var text = ""
            try await admin.exportTranscript(source, format: format) { text += $0 }
            exports[format] = text
        }
        for worker in fleet { worker.signalAll(SIGTERM) }
        for worker in fleet { _ = try await worker.waitForExit(timeout: .seconds(20)) }
        await client.shutdown()
        try await database.drop()
        return exports
    }

    @Test("one worker, then four with two killed mid-way: every export of a three-chapter, four-voice book is the same bytes, speakers numbered by first appearance")
    func sameBytes() async throws {
        let book = try await Self.book()
        defer { try? FileManager.default.removeItem(at: book.deletingLastPathComponent()) }
        let alone = try await Self.run(book, workers: 1, kills: 0)
        let fleet = try await Self.run(book, workers: 4, kills: 2)
        for format in TranscriptFormat.allCases {
            #expect(alone[format] == fleet[format], "the \(format) export differs between one worker and a fleet with kills")
        }
        let transcript = try JSONDecoder().decode(Transcript.self, from: Data((alone[.json] ?? "").utf8))
        let speakers = transcript.speakers?.map(\.name) ?? []
        #expect(speakers.count >= 3, "the four voices are told apart: \(speakers)")
        // Speaker 1 is the first voice heard, Speaker 2 the next new one, and so on.
        var order: [String] = []
        for segment in transcript.chapters.flatMap(\.segments) {
            if let speaker = segment.speaker, !order.contains(speaker) { order.append(speaker) }
        }
        #expect(order == (1...order.count).map { "Speaker \($0)" }, "first heard in the order \(order)")
    }
}
