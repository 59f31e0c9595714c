import Foundation
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoPostgres
import StenoStore
import StenoTestSupport
import StenoTranscription
import Testing

@testable import StenoWorker

/// The ground truth `scripts/make-episodes` writes beside each episode.
struct EpisodeTruth: Decodable {
    struct Sentence: Decodable {
        var start: Double
        var end: Double
        var text: String
    }

    struct Region: Decodable {
        var start: Double
        var end: Double
        var label: String
    }

    var duration: Double
    var text: String
    var sentences: [Sentence]
    var nonspeech: [Region]

    static func load(_ name: String) throws -> (audio: URL, truth: EpisodeTruth) {
        let folder = FixtureBook.directory.appendingPathComponent("episodes")
        let audio = folder.appendingPathComponent("\(name).flac")
        let truth = try JSONDecoder().decode(EpisodeTruth.self, from: Data(contentsOf: folder.appendingPathComponent("\(name).json")))
        return (audio, truth)
    }

    var speechSeconds: Double { sentences.reduce(0) { $0 + $1.end - $1.start } }

    /// Non-speech other than the pauses between sentences, joined where regions touch.
    var longNonSpeech: [ClosedRange<Double>] {
        var joined: [ClosedRange<Double>] = []
        for region in nonspeech.sorted(by: { $0.start < $1.start }) where region.label != "pause" {
            if let last = joined.last, region.start - last.upperBound < 0.01 {
                joined[joined.count - 1] = last.lowerBound...region.end
            } else {
                joined.append(region.start...region.end)
            }
        }
        return joined
    }
}

/// Episodes with music beds, silence and noise through the whole worker: real FFmpeg, the real
/// speech detector, a real HTTP backend.
@Suite("Speech detection end to end", .serialized, .timeLimit(.minutes(5)))
struct SpeechDetectionEndToEndTests {
    struct ChunkRow {
        var start: Double
        var end: Double
        var uploaded: Bool
        var speechSeconds: Double
    }

    static func chunks(_ client: PostgresClient, _ mediaID: Int64) async throws -> [ChunkRow] {
        try await client.query(
            """
            SELECT start_seconds, end_seconds, uploaded, speech_seconds FROM chunks
            WHERE media_id = \(mediaID) AND state = 'succeeded' ORDER BY start_seconds
            """
        ).map {
            ChunkRow(start: try $0.decode("start_seconds"), end: try $0.decode("end_seconds"), uploaded: try $0.decode("uploaded"),
                     speechSeconds: try $0.decode("speech_seconds"))
        }
    }

    static func overlap(_ range: ClosedRange<Double>, _ chunks: [ChunkRow]) -> Double {
        chunks.reduce(0) { $0 + max(0, min(range.upperBound, $1.end) - max(range.lowerBound, $1.start)) }
    }

    @Test("music, silence and noise are not uploaded, every sentence is, and the paid audio is close to the speech")
    func nothingPaidForSilence() async throws {
        let (audio, truth) = try EpisodeTruth.load("episode-short")
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningASRBackend.with { asr in
                try await RunningWorker.with(database: database, backendURL: asr.baseURL, configure: { $0.planner.targetDuration = MediaTime(seconds: 20) }) { _ in
                    let mediaID = try await db.enqueue(audio.path)
                    #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                    let chunks = try await Self.chunks(client, mediaID)
                    let uploaded = chunks.filter(\.uploaded)
                    let paid = uploaded.reduce(0) { $0 + $1.end - $1.start }
                    let detected = chunks.reduce(0) { $0 + $1.speechSeconds }
                    print("episode-short: \(chunks.count) chunks, \(uploaded.count) uploaded; paid \(paid) s, detected speech \(detected) s, spoken \(truth.speechSeconds) s")
                    #expect(paid <= truth.speechSeconds * 1.3, "paid \(paid) s for \(truth.speechSeconds) s of speech")
                    #expect(abs(detected - truth.speechSeconds) <= truth.speechSeconds * 0.15, "detected \(detected) s of \(truth.speechSeconds) s")
                    for sentence in truth.sentences {
                        let covered = Self.overlap(sentence.start...sentence.end, uploaded)
                        #expect(covered >= (sentence.end - sentence.start) - 0.05, "\"\(sentence.text)\" (\(sentence.start)-\(sentence.end)) was not all uploaded: \(uploaded.map { "\($0.start)-\($0.end)" })")
                    }
                    for region in truth.longNonSpeech where region.upperBound - region.lowerBound >= 4 {
                        let sent = Self.overlap(region, uploaded)
                        #expect(sent <= 1.2, "\(sent) s of the non-speech at \(region) was uploaded")
                    }
                    // Status, the report and the cost figures show speech beside what was paid.
                    let progress = try await client.query("SELECT speech_seconds, paid_seconds FROM steno_progress WHERE media_id = \(mediaID)").single()
                    let shownSpeech: Double = try progress.decode("speech_seconds")
                    let shownPaid: Double = try progress.decode("paid_seconds")
                    #expect(abs(shownSpeech - detected) < 0.01)
                    #expect(shownPaid > 0 && shownPaid <= paid + 0.5, "paid \(shownPaid) s shown, \(paid) s uploaded")
                    let costs = try await client.query("SELECT sum(chunks)::integer AS chunks, sum(speech_hours) AS speech FROM steno_costs").single()
                    #expect(try costs.decode("chunks", as: Int.self) == uploaded.count, "chunks never uploaded are not costs")
                    #expect(abs(try costs.decode("speech", as: Double.self) * 3600 - detected) < 4, "speech hours are rounded to 3 decimals")
                    // Nothing of the transcript lies in the music, the silence or the noise.
                    let segments = try await client.query(
                        "SELECT start_seconds, end_seconds, text FROM segments WHERE media_id = \(mediaID) AND flag IS NULL")
                    for row in segments {
                        let start: Double = try row.decode("start_seconds")
                        let end: Double = try row.decode("end_seconds")
                        let text: String = try row.decode("text")
                        let inside = truth.longNonSpeech.contains { $0.lowerBound + 1 <= start && end <= $0.upperBound - 1 }
                        #expect(!inside, "segment \(start)-\(end) \"\(text)\" lies in non-speech")
                    }
                }
            }
        }
    }

    /// 20 s chunks, each asked for once (and again at a temperature when it fails a gate): the
    /// backends here answer one sentence for all of a chunk's speech, and asking again for the
    /// rest of it is `SpeechRecoveryEndToEndTests`' subject, not theirs.
    static func oneAskPerChunk(_ configuration: inout WorkerConfiguration) {
        configuration.planner.targetDuration = MediaTime(seconds: 20)
        configuration.coverage = nil
    }

    /// A backend that loops on the first ask and answers cleanly when asked again with a
    /// temperature, or loops both times.
    static func loopingBackend(recovers: Bool) throws -> FaultServer {
        try FaultServer { _, _ in
            .echo(status: 200) { request in
                let retried = request.field("temperature") == "\(ChunkJobHandler.retryTemperature)"
                let text = retried && recovers ? "After the break we walked down to the harbour." : "the the the the the the the the"
                return ([("Content-Type", "application/json")],
                        #"{"text":"\#(text)","segments":[{"id":0,"start":0.4,"end":3.0,"text":"\#(text)","no_speech_prob":0.01,"avg_logprob":-0.2}]}"#)
            }
        }
    }

    @Test("a looping answer is asked for again at a higher temperature, and the clean second answer is kept")
    func loopRetriedAndRecovered() async throws {
        let (audio, _) = try EpisodeTruth.load("episode-short")
        let backend = try Self.loopingBackend(recovers: true)
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: Self.oneAskPerChunk) { _ in
                let mediaID = try await db.enqueue(audio.path)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                let uploaded = try await Self.chunks(client, mediaID).filter(\.uploaded).count
                #expect(uploaded >= 2)
                let temperatures = backend.requests.map { $0.field("temperature") }
                #expect(temperatures.count == 2 * uploaded, "\(temperatures)")
                #expect(temperatures.filter { $0 == "\(ChunkJobHandler.retryTemperature)" }.count == uploaded)
                let rows = try await client.query("SELECT text, flag FROM segments WHERE media_id = \(mediaID)")
                #expect(rows.count == uploaded)
                for row in rows {
                    #expect(try row.decode("flag", as: String?.self) == nil)
                    #expect(try row.decode("text", as: String.self) == "After the break we walked down to the harbour.")
                }
            }
        }
    }

    @Test("a loop on both asks is held back: flagged with its reason in the JSON export, absent from text and captions, nothing lost")
    func loopFlagged() async throws {
        let (audio, _) = try EpisodeTruth.load("episode-short")
        let backend = try Self.loopingBackend(recovers: false)
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: Self.oneAskPerChunk) { _ in
                let mediaID = try await db.enqueue(audio.path)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                let uploaded = try await Self.chunks(client, mediaID).filter(\.uploaded).count
                let flags: [String?] = try await client.query("SELECT flag FROM segments WHERE media_id = \(mediaID)").map { try $0.decode("flag") }
                #expect(flags.count == uploaded)
                #expect(flags.allSatisfy { $0 == FlagReason.repetition.rawValue })
                let stored: Int = try await client.query(
                    "SELECT count(*)::integer AS n FROM chunks WHERE media_id = \(mediaID) AND flagged IS NOT NULL AND text = ''"
                ).single().decode("n")
                #expect(stored == uploaded, "every chunk keeps what was held back")

                let transcript = try await AdminStore(client: client).transcript(mediaID: mediaID)
                let json = try TranscriptFormat.json.render(transcript)
                #expect(json.contains(#""flag" : "repetition""#))
                #expect(json.contains("the the the the"))
                for format in [TranscriptFormat.txt, .srt, .vtt, .podcast] {
                    #expect(!(try format.render(transcript)).contains("the the"), "\(format) shows flagged text")
                }
            }
        }
    }
}

@Suite("Speed-up before upload, end to end", .serialized, .timeLimit(.minutes(5)))
struct SpeedUpEndToEndTests {
    @Test("STENO_SPEEDUP 1.5: the backend gets two thirds of the seconds, and its times are scaled back to the media's clock")
    func timesScaledBack() async throws {
        let (audio, _) = try EpisodeTruth.load("episode-short")
        let backend = try FaultServer { _, _ in
            .json(200, #"{"text":"Welcome back.","segments":[{"id":0,"start":1.0,"end":3.0,"text":"Welcome back."}],"words":[{"word":"Welcome","start":1.0,"end":2.0},{"word":"back.","start":2.0,"end":3.0}]}"#)
        }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: {
                SpeechDetectionEndToEndTests.oneAskPerChunk(&$0)
                $0.speedup = 1.5
            }) { _ in
                let mediaID = try await db.enqueue(audio.path)
                #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                let chunks = try await client.query(
                    "SELECT start_seconds, end_seconds, segments::text AS segments FROM chunks WHERE media_id = \(mediaID) AND uploaded ORDER BY start_seconds")
                #expect(chunks.count == backend.requests.count)
                // The uploads (in whatever order they were sent) hold the chunks played 1.5 times as fast.
                var sent: [Double] = []
                for request in backend.requests {
                    let url = FileManager.default.temporaryDirectory.appendingPathComponent("steno-upload-\(UUID().uuidString).flac")
                    try Data(try #require(request.parts.first { $0.name == "file" }).body).write(to: url)
                    defer { try? FileManager.default.removeItem(at: url) }
                    sent.append(try #require(try await MediaFile(.file(path: url.path)).probe().duration).seconds)
                }
                let lengths = try chunks.map { row -> Double in try row.decode("end_seconds") - row.decode("start_seconds") }
                for (heard, length) in zip(sent.sorted(), lengths.sorted()) {
                    #expect(abs(heard - length / 1.5) <= 0.05, "sent \(heard) s for a chunk of \(length) s")
                }
                for row in chunks {
                    let start: Double = try row.decode("start_seconds")
                    // 1.0-3.0 s of what the backend heard is 1.5-4.5 s into the chunk.
                    let segments = try JSONDecoder().decode([TimedSegment].self, from: Data(try row.decode("segments", as: String.self).utf8))
                    let segment = try #require(segments.first)
                    #expect(abs(segment.start - (start + 1.5)) < 0.01 && abs(segment.end - (start + 4.5)) < 0.01, "\(segment) in a chunk at \(start)")
                }
            }
        }
    }
}
