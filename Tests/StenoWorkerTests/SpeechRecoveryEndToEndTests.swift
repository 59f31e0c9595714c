import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoWorker

/// Speech an answer left without words is asked for again, span by span, once.
@Suite("Speech left without words, end to end", .serialized, .timeLimit(.minutes(5)))
struct SpeechRecoveryEndToEndTests {
    /// The first ask of every chunk is answered with three words at its start, as a backend that
    /// lost the rest; an ask for a span alone (it has a prompt) with `recovered`.
    static func forgetfulBackend(recovered: String?) throws -> FaultServer {
        try FaultServer { _, _ in .echo(status: 200) { request in forgetfulAnswer(request, recovered: recovered) } }
    }

    static func forgetfulAnswer(_ request: RecordedRequest, recovered: String?) -> (headers: [(String, String)], body: String) {
        guard request.field("prompt") != nil else {
            return ([("Content-Type", "application/json")], #"""
                {"text":"Alpha bravo charlie.","segments":[{"id":0,"start":0.4,"end":1.6,"text":"Alpha bravo charlie.","no_speech_prob":0.01,"avg_logprob":-0.2}],
                 "words":[{"word":"Alpha","start":0.4,"end":0.8},{"word":"bravo","start":0.8,"end":1.2},{"word":"charlie.","start":1.2,"end":1.6}]}
                """#)
        }
        guard let recovered else { return ([("Content-Type", "application/json")], #"{"text":"","segments":[],"words":[]}"#) }
        let words = recovered.split(separator: " ").enumerated().map { index, word in
            #"{"word":"\#(word)","start":\#(1.1 + Double(index) * 0.3),"end":\#(1.35 + Double(index) * 0.3)}"#
        }
        return ([("Content-Type", "application/json")], #"""
            {"text":"\#(recovered)","segments":[{"id":0,"start":1.1,"end":2.0,"text":"\#(recovered)","no_speech_prob":0.01,"avg_logprob":-0.2}],
             "words":[\#(words.joined(separator: ","))]}
            """#)
    }

    /// episode-short through an in-process worker with 20 s chunks against `backend`; `body`
    /// gets the media once it succeeded.
    static func transcribe(
        with backend: FaultServer, audio: URL? = nil, configure: (inout WorkerConfiguration) -> Void = { _ in },
        _ body: (PostgresClient, Int64) async throws -> Void
    ) async throws {
        let audio = try audio ?? EpisodeTruth.load("episode-short").audio
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: {
                $0.planner.targetDuration = MediaTime(seconds: 20)
                configure(&$0)
            }) { _ in
                let mediaID = try await db.enqueue(audio.path)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                try await body(client, mediaID)
            }
        }
    }

    struct StoredChunk {
        var start: Double
        var end: Double
        var text: String
        var words: Int
        var usage: Double?
    }

    static func stored(_ client: PostgresClient, _ mediaID: Int64) async throws -> [StoredChunk] {
        try await client.query(
            """
            SELECT start_seconds, end_seconds, text, coalesce(jsonb_array_length(words), 0) AS words, usage_seconds FROM chunks
            WHERE media_id = \(mediaID) AND state = 'succeeded' AND uploaded ORDER BY start_seconds
            """
        ).map {
            StoredChunk(start: try $0.decode("start_seconds"), end: try $0.decode("end_seconds"), text: try $0.decode("text"),
                        words: try $0.decode("words"), usage: try $0.decode("usage_seconds"))
        }
    }

    @Test("each span of speech without words is asked once, alone, after the words before it, and its words are kept in place")
    func recovered() async throws {
        let backend = try Self.forgetfulBackend(recovered: "Delta echo foxtrot.")
        try await Self.transcribe(with: backend) { client, mediaID in
            let chunks = try await Self.stored(client, mediaID)
            let requests = backend.requests
            let first = requests.filter { $0.field("prompt") == nil }
            let again = requests.filter { $0.field("prompt") != nil }
            #expect(first.count == chunks.count)
            #expect(again.count >= chunks.count && again.count <= 3 * chunks.count, "\(again.count) asks again for \(chunks.count) chunks")
            for request in again {
                let prompt = request.field("prompt") ?? ""
                #expect(prompt.hasSuffix("Alpha bravo charlie.") || prompt.hasSuffix("Delta echo foxtrot."), "\(prompt)")
                let seconds = try #require(SpeakerEndToEndTests.flacSeconds(request.parts.first { $0.name == "file" }?.body ?? []))
                #expect(seconds >= SpeechCoverage().shortestSpan && seconds < 20, "a span is sent alone: \(seconds) s")
            }
            var recoveredWords = 0
            for chunk in chunks {
                #expect(chunk.text.hasPrefix("Alpha bravo charlie. Delta echo foxtrot."), "\(chunk.text)")
                let spans = chunk.text.components(separatedBy: "Delta echo foxtrot.").count - 1
                #expect(chunk.words == 3 + 3 * spans)
                recoveredWords += 3 * spans
                // Paid for: the chunk and every span asked again.
                #expect((chunk.usage ?? 0) > chunk.end - chunk.start + 0.5, "usage \(chunk.usage) s for a chunk of \(chunk.end - chunk.start) s")
            }
            #expect(recoveredWords == 3 * again.count)
            let transcript = try await AdminStore(client: client).transcript(mediaID: mediaID)
            let text = try TranscriptFormat.txt.render(transcript)
            #expect(text.components(separatedBy: "Delta echo foxtrot.").count - 1 == again.count)
        }
    }

    @Test("a span that comes back without words again is asked once, and the answer stands")
    func emptyAgain() async throws {
        let backend = try Self.forgetfulBackend(recovered: nil)
        try await Self.transcribe(with: backend) { client, mediaID in
            let chunks = try await Self.stored(client, mediaID)
            let again = backend.requests.filter { $0.field("prompt") != nil }
            #expect(again.count >= chunks.count && again.count <= 3 * chunks.count)
            // Each span once: no two asks for the same audio, and no second round.
            let audio = again.map { $0.parts.first { $0.name == "file" }?.body ?? [] }
            #expect(Set(audio).count == again.count)
            #expect(again.allSatisfy { $0.field("prompt")?.hasSuffix("Alpha bravo charlie.") == true })
            #expect(chunks.allSatisfy { $0.text == "Alpha bravo charlie." && $0.words == 3 })
        }
    }

    @Test("a recording that cannot be read again for the span keeps the answer it has")
    func sourceGoneBeforeTheSpan() async throws {
        // The backend removes the recording when the chunk's first ask arrives: the span's audio
        // cannot be encoded, and the chunk's answer, already paid for, is kept as it is.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("steno-gone-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The first stretch of speech alone (10-28 s of the episode), so that the recording is one chunk.
        let copy = folder.appendingPathComponent("episode.flac")
        let cut = try await ChildProcess.run("/usr/bin/ffmpeg", [
            "-v", "error", "-ss", "9", "-t", "20", "-i", try EpisodeTruth.load("episode-short").audio.path, copy.path,
        ])
        try #require(cut.status == 0, "\(cut.standardError)")
        let backend = try FaultServer { _, _ in
            .echo(status: 200) { request in
                try? FileManager.default.removeItem(at: copy)
                return Self.forgetfulAnswer(request, recovered: "Delta echo foxtrot.")
            }
        }
        try await Self.transcribe(with: backend, audio: copy, configure: { $0.planner.targetDuration = MediaTime(seconds: 60) }) { client, mediaID in
            let chunks = try await Self.stored(client, mediaID)
            #expect(chunks.count == 1)
            #expect(chunks.first?.text == "Alpha bravo charlie.")
            #expect(backend.requests.count == 1, "nothing asked again without its audio")
        }
    }

    @Test("STENO_RECOVER_SPEECH=off sends each chunk once, whatever its answer left out")
    func off() async throws {
        let backend = try Self.forgetfulBackend(recovered: "Delta echo foxtrot.")
        try await Self.transcribe(with: backend, configure: { $0.coverage = nil }) { client, mediaID in
            let chunks = try await Self.stored(client, mediaID)
            #expect(backend.requests.count == chunks.count)
        }
    }
}
