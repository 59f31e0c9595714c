import Foundation
import StenoCore
import StenoPostgres
import StenoSpeech
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoWorker

/// A backend that answers text alone (OpenAI's gpt-4o transcribe models), and the worker's
/// aligner giving the words their times.
@Suite("Text-only answers timed by alignment, end to end", .serialized, .timeLimit(.minutes(5)))
struct TextAlignmentEndToEndTests {
    /// The first four sentences of episode-short, cut out (9 to 29 s of the episode) so that
    /// the recording is one chunk, and their true times in the cut.
    static func recording(in folder: URL) async throws -> (audio: URL, sentences: [EpisodeTruth.Sentence]) {
        let (episode, truth) = try EpisodeTruth.load("episode-short")
        let cut = folder.appendingPathComponent("four-sentences.flac")
        let made = try await ChildProcess.run("/usr/bin/ffmpeg", ["-v", "error", "-ss", "9", "-t", "20", "-i", episode.path, cut.path])
        try #require(made.status == 0, "\(made.standardError)")
        let sentences = truth.sentences.filter { $0.start >= 9 && $0.end <= 29 }.map {
            EpisodeTruth.Sentence(start: $0.start - 9, end: $0.end - 9, text: $0.text)
        }
        try #require(sentences.count == 4)
        return (cut, sentences)
    }

    static func transcript(aligner: TextAligner?, translate: Bool = false) async throws -> (sentences: [EpisodeTruth.Sentence], segments: [Transcript.Segment], words: Int) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("steno-align-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (audio, sentences) = try await recording(in: folder)
        let text = sentences.map(\.text).joined(separator: " ")
        let body = try String(decoding: JSONSerialization.data(withJSONObject: ["text": text]), as: UTF8.self)
        let backend = try FaultServer(replies: [], then: .json(200, body))
        return try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            return try await RunningWorker.with(
                database: database, backendURL: backend.baseURL,
                configure: { $0.planner.targetDuration = MediaTime(seconds: 60) }, aligner: aligner
            ) { _ in
                let mediaID = try await db.enqueue(audio.path, language: translate ? "de" : nil, translate: translate)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                let words = try await client.query(
                    "SELECT coalesce(sum(jsonb_array_length(words)), 0)::int AS words FROM chunks WHERE media_id = \(mediaID) AND uploaded"
                ).first.map { try $0.decode("words") as Int } ?? 0
                let transcript = try await AdminStore(client: client).transcript(mediaID: mediaID)
                return (sentences, transcript.chapters.flatMap(\.segments), words)
            }
        }
    }

    @Test("every sentence of a text-only answer starts and ends within 0.3 s of its speech, with word times")
    func sentencesOnTheirSpeech() async throws {
        let (sentences, segments, words) = try await Self.transcript(aligner: try TextAligner())
        #expect(segments.map(\.text) == sentences.map(\.text))
        #expect(words == sentences.map { $0.text.split(separator: " ").count }.reduce(0, +), "the chunk stores a time for each word")
        for (segment, sentence) in zip(segments, sentences) {
            #expect(abs(segment.start - sentence.start) < 0.3, "\(segment.text): starts at \(segment.start), said at \(sentence.start)")
            #expect(abs(segment.end - sentence.end) < 0.3, "\(segment.text): ends at \(segment.end), said until \(sentence.end)")
            #expect(segment.words?.count == segment.text.split(separator: " ").count, "word times exported for \(segment.text)")
        }
    }

    @Test("without an aligner the same answer keeps no word times: its sentences are laid over the speech")
    func withoutAnAligner() async throws {
        let (sentences, segments, words) = try await Self.transcript(aligner: nil)
        #expect(segments.map(\.text) == sentences.map(\.text))
        #expect(words == 0)
        #expect(segments.allSatisfy { $0.words == nil || $0.words?.isEmpty == true })
    }

    @Test("a translation is never aligned: its text is not what its audio says, so it keeps no word times")
    func translationsAreNotAligned() async throws {
        // The backend's English text happens to be what the audio says; a real translation's
        // would not be, and times taken from it would be invented. The rule is the task's.
        let (sentences, segments, words) = try await Self.transcript(aligner: try TextAligner(), translate: true)
        #expect(segments.map(\.text) == sentences.map(\.text))
        #expect(words == 0, "a translated chunk stored aligned word times")
        #expect(segments.allSatisfy { $0.words == nil || $0.words?.isEmpty == true })
    }
}
