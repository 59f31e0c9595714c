import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Synchronization
import Testing

@testable import StenoWorker

/// One language per media: settled from the answers, asked in from then on, and an answer in
/// another language asked again in it. A backend that detects the language chunk by chunk
/// answers one chunk, asked bare, in German.
@Suite("One language per media, end to end", .serialized, .timeLimit(.minutes(5)))
struct MediaLanguageEndToEndTests {
    static let english = "Alpha bravo charlie."
    static let german = "Guten Morgen allerseits."

    /// Answers bare asks in English, except the `germanAsk`-th bare ask (1-based), which it
    /// answers in German as a backend that misdetected a chunk; an ask in a language is
    /// answered in it.
    static func detectingBackend(germanAsk: Int = 2) throws -> FaultServer {
        let bare = Atomic<Int>(0)
        return try FaultServer { _, _ in
            .echo(status: 200) { request in
                let asked = request.field("language")
                var (text, language) = (english, "english")
                if asked == nil, bare.add(1, ordering: .relaxed).newValue == germanAsk { (text, language) = (german, "german") }
                if asked == "de" { (text, language) = (german, "german") }
                let words = text.split(separator: " ").enumerated().map { index, word in
                    #"{"word":"\#(word)","start":\#(0.4 + Double(index) * 0.4),"end":\#(0.7 + Double(index) * 0.4)}"#
                }
                return ([("Content-Type", "application/json")], #"""
                    {"text":"\#(text)","language":"\#(language)","segments":[{"id":0,"start":0.4,"end":1.6,"text":"\#(text)","no_speech_prob":0.01,"avg_logprob":-0.2}],
                     "words":[\#(words.joined(separator: ","))]}
                    """#)
            }
        }
    }

    struct StoredChunk {
        var text: String
        var language: String?
        var seconds: Double
        var usage: Double?
    }

    /// An episode through an in-process worker with 12 s chunks, one job at a time, so that
    /// the asks come in the chunks' order.
    static func transcribe(
        _ episode: String = "episode-short", with backend: FaultServer, language: String? = nil, multilingual: Bool = false, translate: Bool = false,
        _ body: (PostgresClient, Int64, [StoredChunk]) async throws -> Void
    ) async throws {
        let audio = try EpisodeTruth.load(episode).audio
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: {
                $0.planner.targetDuration = MediaTime(seconds: 12)
                $0.concurrency = 1
                $0.coverage = nil
                // Who said what is not what these tests are about, and its model is the
                // heaviest part of a chunk job on a machine the whole phase shares.
                $0.speakerDetection = false
            }) { _ in
                let mediaID = try await db.enqueue(audio.path, language: language, multilingual: multilingual, translate: translate)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                let chunks = try await client.query(
                    """
                    SELECT text, language, end_seconds - start_seconds AS seconds, usage_seconds FROM chunks
                    WHERE media_id = \(mediaID) AND state = 'succeeded' AND uploaded ORDER BY start_seconds
                    """
                ).map {
                    StoredChunk(text: try $0.decode("text"), language: try $0.decode("language"), seconds: try $0.decode("seconds"),
                                usage: try $0.decode("usage_seconds"))
                }
                try #require(chunks.count >= 3, "the episode is cut into at least three chunks: \(chunks.count)")
                try await body(client, mediaID, chunks)
            }
        }
    }

    static func detected(_ client: PostgresClient, _ mediaID: Int64) async throws -> String? {
        try await client.query("SELECT detected_language FROM media WHERE id = \(mediaID)").single().decode("detected_language")
    }

    @Test("without a language, a chunk answered in another before the language was settled is asked again in it before the merge")
    func answeredBeforeSettledIsAskedAgain() async throws {
        // Four or five chunks of about 12 s, one job at a time: English, German, then English.
        // The language settles when 30 s of English are answered, after the German answer.
        let backend = try Self.detectingBackend(germanAsk: 2)
        try await Self.transcribe(with: backend) { client, mediaID, chunks in
            #expect(try await Self.detected(client, mediaID) == "en")
            #expect(chunks.allSatisfy { $0.text == Self.english && $0.language == "en" }, "\(chunks.map { ($0.text, $0.language) })")
            let requests = backend.requests
            #expect(requests.filter { $0.field("language") == nil }.count == chunks.count)
            #expect(requests.filter { $0.field("language") == "en" }.count == 1, "the German chunk, asked again in English")
            // The chunk asked twice is paid twice; the others once.
            let twice = chunks.filter { ($0.usage ?? 0) > $0.seconds + 0.5 }
            #expect(twice.count == 1, "\(chunks.map { ($0.seconds, $0.usage) })")
            let transcript = try await AdminStore(client: client).transcript(mediaID: mediaID)
            #expect(transcript.language == "en")
            let text = try TranscriptFormat.txt.render(transcript)
            #expect(!text.contains("Guten"), "\(text)")
            let progress = try await AdminStore(client: client).progress(of: mediaID)
            #expect(progress.language == "en" && progress.languageDetected && progress.languageText == "en (detected)")
            // Search stems the media's words in its language: "alphas" finds "Alpha", which
            // search without a stemmer (an unknown language) does not.
            let hits = try await AdminStore(client: client).search("alphas", tenant: NewMedia.defaultTenant)
            #expect(!hits.hits.isEmpty, "search in English finds the stem")
        }
    }

    @Test("without a language, once 30 s of answers agree, every later chunk is asked in their language")
    func settledThenAskedIn() async throws {
        let backend = try Self.detectingBackend(germanAsk: 3)
        try await Self.transcribe("episode-1", with: backend) { client, mediaID, chunks in
            let detected = try await Self.detected(client, mediaID)
            #expect(detected == "en")
            #expect(chunks.allSatisfy { $0.text == Self.english && $0.language == "en" }, "\(chunks.map { ($0.text, $0.language) })")
            let asked = backend.requests.map { $0.field("language") }
            let bare = asked.prefix { $0 == nil }.count
            #expect(bare >= 2 && bare < chunks.count, "\(bare) bare asks for \(chunks.count) chunks")
            #expect(asked.dropFirst(bare).allSatisfy { $0 == "en" }, "once settled, never bare again: \(asked)")
        }
    }

    @Test("a media settled in the wrong language is corrected: every chunk is asked again in the right one and merged again")
    func correctedLanguage() async throws {
        let backend = try Self.detectingBackend(germanAsk: 0)
        try await Self.transcribe(with: backend) { client, mediaID, chunks in
            let store = AdminStore(client: client)
            #expect(try await store.progress(of: mediaID).languageText == "en (detected)")
            let asked = backend.requests.count
            let correction = try await store.transcribeAgain(mediaID: mediaID, language: "de", multilingual: false)
            #expect(correction.requeuedChunks == chunks.count && correction.mediaState == .transcribing)
            #expect(try await WorkerTestDatabase(client: client).waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
            let again = backend.requests.dropFirst(asked)
            #expect(again.count == chunks.count && again.allSatisfy { $0.field("language") == "de" }, "\(again.map { $0.field("language") })")
            let texts: [String] = try await client.query(
                "SELECT text FROM chunks WHERE media_id = \(mediaID) AND state = 'succeeded' AND uploaded AND language = 'de'").map { try $0.decode("text") }
            #expect(texts.count == chunks.count && texts.allSatisfy { $0 == Self.german })
            let transcript = try TranscriptFormat.txt.render(try await store.transcript(mediaID: mediaID))
            #expect(transcript.contains("Guten Morgen") && !transcript.contains("Alpha"), "\(transcript)")
            let progress = try await store.progress(of: mediaID)
            #expect(progress.languageText == "de")
            // Both answers of every chunk were paid for.
            let paid: Double = try await client.query(
                "SELECT coalesce(sum(paid_seconds), 0)::float8 AS paid FROM tenant_usage WHERE tenant = 'default'").single().decode("paid")
            let audio = chunks.reduce(0) { $0 + $1.seconds }
            #expect(paid > 1.9 * audio, "paid \(paid) s for \(audio) s of chunks asked twice")
        }
    }

    @Test("a media to translate is asked through the translations endpoint, and its transcript is English")
    func translated() async throws {
        let backend = try FaultServer { _, head in
            .echo(status: 200) { request in
                let text = head.path.hasSuffix("/audio/translations") ? "Good morning everyone." : Self.german
                return ([("Content-Type", "application/json")], #"""
                    {"text":"\#(text)","language":"german","segments":[{"id":0,"start":0.4,"end":1.6,"text":"\#(text)","no_speech_prob":0.01,"avg_logprob":-0.2}]}
                    """#)
            }
        }
        try await Self.transcribe(with: backend, language: "de", translate: true) { client, mediaID, chunks in
            #expect(backend.requests.allSatisfy { $0.head.path == "/v1/audio/translations" && $0.field("language") == nil })
            #expect(chunks.allSatisfy { $0.text == "Good morning everyone." && $0.language == "en" }, "\(chunks.map(\.text))")
            let store = AdminStore(client: client)
            let progress = try await store.progress(of: mediaID)
            #expect(progress.translate && progress.languageText == "en (translated from de)")
            #expect(try await store.transcript(mediaID: mediaID).language == "en")
            let detected = try await Self.detected(client, mediaID)
            #expect(detected == nil)
            // Indexed as English: "mornings" finds "morning".
            #expect(!(try await store.search("mornings", tenant: NewMedia.defaultTenant).hits.isEmpty))
        }
    }

    @Test("with multi, every chunk is asked bare and keeps its own language; nothing is settled")
    func multilingualKeepsEachChunks() async throws {
        let backend = try Self.detectingBackend()
        try await Self.transcribe(with: backend, multilingual: true) { client, mediaID, chunks in
            let detected = try await Self.detected(client, mediaID)
            #expect(detected == nil)
            #expect(backend.requests.allSatisfy { $0.field("language") == nil })
            #expect(backend.requests.count == chunks.count)
            #expect(chunks.filter { $0.text == Self.german && $0.language == "de" }.count == 1)
            #expect(chunks.filter { $0.text == Self.english && $0.language == "en" }.count == chunks.count - 1)
            let progress = try await AdminStore(client: client).progress(of: mediaID)
            #expect(progress.multilingual && progress.language == nil)
        }
    }

    @Test("a given language is asked in from the first chunk, and nothing is detected")
    func givenLanguage() async throws {
        let backend = try Self.detectingBackend()
        try await Self.transcribe(with: backend, language: "de") { client, mediaID, chunks in
            let detected = try await Self.detected(client, mediaID)
            #expect(detected == nil)
            #expect(backend.requests.allSatisfy { $0.field("language") == "de" })
            #expect(chunks.allSatisfy { $0.text == Self.german && $0.language == "de" })
            let progress = try await AdminStore(client: client).progress(of: mediaID)
            #expect(progress.language == "de" && !progress.languageDetected)
        }
    }

    @Test("an answer in another language than the media settled on meanwhile is asked again before any review: its gates' second ask is not paid for and thrown away")
    func languageBeforeReviews() async throws {
        // Asked bare, the chunk's answer comes in German, and a gate would flag it (a
        // repetition, by its compression ratio): reviewed first, it would be asked again at a
        // higher temperature, then once more in the media's language.
        let backend = try FaultServer { _, _ in
            // Every ask is answered after a moment: in the first one's, the test settles the language.
            .echo(status: 200, delay: .seconds(2)) { request in
                let english = request.field("language") == "en"
                let (text, language, ratio) = english ? (Self.english, "english", 1.2) : (Self.german, "german", 3.0)
                return ([("Content-Type", "application/json")], #"""
                    {"text":"\#(text)","language":"\#(language)","segments":[{"id":0,"start":0.2,"end":1.6,"text":"\#(text)","no_speech_prob":0.01,"avg_logprob":-0.2,"compression_ratio":\#(ratio)}]}
                    """#)
            }
        }
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            let mediaID = try await db.enqueue(FixtureBook.file("clip-2s.flac").path)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: {
                $0.concurrency = 1
                $0.coverage = nil
                $0.speakerDetection = false
            }) { _ in
                // The media's language settles while the chunk is being asked, as another
                // chunk's answer would settle it.
                try await poll(until: { backend.requestCount == 1 }, "the chunk's bare ask")
                try await client.query("UPDATE media SET detected_language = 'en' WHERE id = \(mediaID)")
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
            }
            let requests = backend.requests
            let asks = requests.map { "language \($0.field("language") ?? "none"), temperature \($0.field("temperature") ?? "none")" }
            let atHigherTemperature = requests.filter { $0.field("temperature") != nil }.count
            #expect(atHigherTemperature == 0, "the German answer's gate asked again before the language did: \(asks)")
            #expect(requests.filter { $0.field("language") == "en" }.count == 1)
        }
    }
}
