import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoWorker

/// A speaker reference as `bench/speakers/make-conversations` writes it (RTTM).
struct SpeakerReference {
    struct Turn {
        var start: Double
        var end: Double
        var speaker: String
    }

    var turns: [Turn]

    static func load(_ name: String) throws -> (audio: URL, reference: SpeakerReference) {
        let folder = FixtureBook.directory.appendingPathComponent("speakers")
        let text = try String(contentsOf: folder.appendingPathComponent("\(name).rttm"), encoding: .utf8)
        let turns = text.split(separator: "\n").compactMap { line -> Turn? in
            let fields = line.split(separator: " ")
            guard fields.count >= 8, let start = Double(fields[3]), let duration = Double(fields[4]) else { return nil }
            return Turn(start: start, end: start + duration, speaker: String(fields[7]))
        }
        return (folder.appendingPathComponent("\(name).flac"), SpeakerReference(turns: turns))
    }

    var speakers: Set<String> { Set(turns.map(\.speaker)) }

    /// The share of reference speech (outside a 0.25 s collar at each turn's ends) that the
    /// found turns give to the speaker mapped to the reference one, under the best one-to-one
    /// mapping; and that mapping, reference speaker to speaker number.
    func agreement(with found: [SpeakerTurn]) -> (share: Double, mapping: [String: Int]) {
        let step = 0.01
        var overlap: [String: [Int: Double]] = [:]
        var total = 0.0
        for turn in turns {
            var time = turn.start + 0.25
            while time < turn.end - 0.25 {
                total += step
                if let speaker = found.first(where: { $0.start <= time && time < $0.end })?.speaker {
                    overlap[turn.speaker, default: [:]][speaker, default: 0] += step
                }
                time += step
            }
        }
        // Few speakers: every one-to-one mapping is tried.
        let references = speakers.sorted()
        let numbers = Array(Set(found.map(\.speaker))).sorted()
        var best = (share: 0.0, mapping: [String: Int]())
        func assign(_ index: Int, _ used: Set<Int>, _ mapping: [String: Int], _ sum: Double) {
            if index == references.count {
                if sum > best.share * total { best = (sum / max(total, 1e-9), mapping) }
                return
            }
            assign(index + 1, used, mapping, sum)
            for number in numbers where !used.contains(number) {
                var next = mapping
                next[references[index]] = number
                assign(index + 1, used.union([number]), next, sum + (overlap[references[index]]?[number] ?? 0))
            }
        }
        assign(0, [], [:], 0)
        return best
    }
}

/// Speakers told apart through the whole fleet: real FFmpeg, the real speech detector and
/// speaker encoder, a real HTTP backend (words every half second), the merge's numbering in
/// PostgreSQL.
@Suite("Speakers end to end", .serialized, .timeLimit(.minutes(5)))
struct SpeakerEndToEndTests {
    static func enqueue(_ client: PostgresClient, _ path: String, tenant: String = NewMedia.defaultTenant, speakers: String? = nil) async throws -> Int64 {
        let media = try MediaOptions(title: "talk", speakers: speakers).validated(source: path, tenant: tenant)
        return try await AdminStore(client: client).enqueue([media], allowDuplicates: true)[0].mediaID
    }

    /// A backend that answers at once with a word every half second of the chunk's audio (its
    /// length read from the FLAC's STREAMINFO): the speakers come from the audio the worker
    /// measured, not from the words, so these tests need word times and no recogniser, and
    /// leave the cores to the suites that run beside them.
    static func wordClock() throws -> FaultServer {
        try FaultServer { _, _ in
            .echo(status: 200) { request in
                let audio = request.parts.first { $0.name == "file" }?.body ?? []
                let seconds = Self.flacSeconds(audio) ?? 10
                let words = stride(from: 0.05, to: max(0.1, seconds - 0.4), by: 0.5).enumerated().map { index, start in
                    #"{"word":" w\#(index)","start":\#(start),"end":\#(start + 0.4)}"#
                }
                let text = (0..<words.count).map { "w\($0)" }.joined(separator: " ")
                return ([("Content-Type", "application/json")],
                        #"{"text":"\#(text)","duration":\#(seconds),"words":[\#(words.joined(separator: ","))],"segments":[{"id":0,"start":0,"end":\#(seconds),"text":"\#(text)","no_speech_prob":0.01,"avg_logprob":-0.2}]}"#)
            }
        }
    }

    /// A FLAC's length from its STREAMINFO (total samples over the sample rate); nil if unknown.
    static func flacSeconds(_ bytes: [UInt8]) -> Double? {
        guard bytes.count >= 26, bytes[0..<4] == [0x66, 0x4C, 0x61, 0x43] else { return nil }
        let rate = Int(bytes[18]) << 12 | Int(bytes[19]) << 4 | Int(bytes[20]) >> 4
        let samples = Int(bytes[21] & 0x0F) << 32 | Int(bytes[22]) << 24 | Int(bytes[23]) << 16 | Int(bytes[24]) << 8 | Int(bytes[25])
        return rate > 0 && samples > 0 ? Double(samples) / Double(rate) : nil
    }

    /// A database, the word-clock backend and an in-process worker (20 s chunks unless
    /// `configure` says otherwise) around `body`.
    static func withFleet(
        configure: @escaping (inout WorkerConfiguration) -> Void = { _ in },
        _ body: (PostgresClient, WorkerTestDatabase, AdminStore) async throws -> Void
    ) async throws {
        let backend = try wordClock()
        defer { backend.stop() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            try await RunningWorker.with(database: database, backendURL: backend.baseURL, configure: { settings in
                settings.planner.targetDuration = MediaTime(seconds: 20)
                configure(&settings)
            }) { _ in
                try await body(client, WorkerTestDatabase(client: client), AdminStore(client: client))
                // Every chunk's length was read from its upload, so every word lies in its audio.
                #expect(backend.requests.allSatisfy { request in Self.flacSeconds(request.parts.first { $0.name == "file" }?.body ?? []) != nil })
            }
        }
    }

    static func cuts(_ client: PostgresClient, _ mediaID: Int64) async throws -> [Double] {
        try await client.query("SELECT start_seconds, end_seconds FROM chunks WHERE media_id = \(mediaID) AND uploaded ORDER BY start_seconds")
            .map { (try $0.decode("start_seconds", as: Double.self), try $0.decode("end_seconds", as: Double.self)) }
            .adjacentPairs.map { ($0.0.1 + $0.1.0) / 2 }
    }

    @Test("two voices at 20 s chunks: two speakers, the right one on 95 % of the speech, no label change at a cut inside a turn, names in every export")
    func twoVoices() async throws {
        let (audio, reference) = try SpeakerReference.load("synth-two")
        try await Self.withFleet { client, db, admin in
                    let mediaID = try await Self.enqueue(client, audio.path)
                    #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                    let speakers = try await admin.speakers(mediaID: mediaID)
                    #expect(speakers.map(\.number) == [1, 2])
                    let turns = try await admin.speakerTurns(mediaID: mediaID)
                    let (share, mapping) = reference.agreement(with: turns)
                    #expect(share >= 0.95, "the right speaker on \(share) of the speech")
                    #expect(Set(mapping.values).count == 2)
                    // A cut inside a reference turn never changes the label across it.
                    let cuts = try await Self.cuts(client, mediaID)
                    #expect(!cuts.isEmpty, "20 s chunks cut a 51 s talk")
                    for cut in cuts {
                        guard reference.turns.contains(where: { $0.start + 1 < cut && cut < $0.end - 1 }) else { continue }
                        #expect(SpeakerTurn.speaker(at: cut - 0.8, in: turns) == SpeakerTurn.speaker(at: cut + 0.8, in: turns), "label changes at the cut at \(cut)")
                    }
                    // The pieces have served once the chapter is merged: none is kept.
                    #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND voices IS NOT NULL", mediaID) == 0)
                    // Every job run again (as if each completion had been lost): the same speakers,
                    // the same labels, nothing measured or paid twice.
                    let labelsBefore = try await client.query("SELECT speaker FROM segments WHERE media_id = \(mediaID) ORDER BY chapter_id, index")
                        .map { try $0.decode("speaker", as: Int?.self) }
                    try await client.query(
                        "UPDATE jobs SET state = 'queued', run_at = now(), finished_at = NULL, max_attempts = attempt + 5 WHERE media_id = \(mediaID)")
                    try await db.waitForQuietJobs(mediaID)
                    #expect(try await admin.speakers(mediaID: mediaID).map(\.number) == [1, 2])
                    #expect(try await client.query("SELECT speaker FROM segments WHERE media_id = \(mediaID) ORDER BY chapter_id, index")
                        .map { try $0.decode("speaker", as: Int?.self) } == labelsBefore)
                    #expect(try await admin.speakerTurns(mediaID: mediaID) == turns)
                    // Talk time adds up to about the speech.
                    let speech = reference.turns.reduce(0) { $0 + $1.end - $1.start }
                    #expect(abs(speakers.reduce(0) { $0 + $1.talkSeconds } - speech) < speech * 0.15)
                    let source = try await admin.transcriptSource(mediaID: mediaID)
                    var json = ""
                    try await admin.exportTranscript(source, format: .json) { json += $0 }
                    let transcript = try JSONDecoder().decode(Transcript.self, from: Data(json.utf8))
                    #expect(transcript.speakers?.map(\.name) == ["Speaker 1", "Speaker 2"])
                    let segments = transcript.chapters.flatMap(\.segments).filter { $0.flag == nil }
                    #expect(!segments.isEmpty && segments.allSatisfy { $0.speaker != nil })
                    #expect(segments.allSatisfy { segment in segment.words?.allSatisfy { $0.speaker == segment.speaker } ?? true })
                    for (format, mark) in [(TranscriptFormat.srt, "Speaker 2: "), (.vtt, "<v Speaker 2>"), (.txt, "Speaker 2: "), (.podcast, "\"speaker\" : \"Speaker 2\"")] {
                        var text = ""
                        try await admin.exportTranscript(source, format: format) { text += $0 }
                        #expect(text.contains(mark), "\(format) names the speakers")
                    }
                    // Named once, recognised in the tenant's next recording with one of the voices,
                    // never in another tenant's.
                    let sltNumber = try #require(mapping["flite-slt"])
                    _ = try await admin.renameSpeaker(mediaID: mediaID, number: sltNumber, name: "Ada")
                    // The committed reference clip: slt for its first 3 s, then two other voices.
                    let clip = PackageRoot.url.appendingPathComponent("Tests/Fixtures/voices/synthetic-reference.flac").path
                    let next = try await Self.enqueue(client, clip)
                    let other = try await Self.enqueue(client, clip, tenant: "other")
                    #expect(try await db.waitForMedia(next, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                    #expect(try await db.waitForMedia(other, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                    let nextSpeakers = try await admin.speakers(mediaID: next)
                    let sltThere = SpeakerTurn.speaker(at: 1.7, in: try await admin.speakerTurns(mediaID: next))
                    let recognised = try #require(nextSpeakers.first { $0.number == sltThere })
                    print("recognised speaker \(recognised.number) of media \(next) as \(recognised.name ?? "nobody"), similarity \(recognised.similarity ?? 0)")
                    #expect(recognised.name == "Ada")
                    // Well inside the profile threshold (CAM++ puts one voice's two recordings at a
                    // similarity of about 0.85; the threshold is 0.47), not at its edge.
                    #expect((recognised.similarity ?? 0) > 1 - Double(VoiceProfileMatch.defaultThreshold) + 0.1 && recognised.profileID != nil)
                    #expect(nextSpeakers.filter { $0.name == "Ada" }.count == 1)
                    #expect(try await admin.speakers(mediaID: other).allSatisfy { $0.name == nil }, "a profile never crosses tenants")
                    // Undone: the name goes, and no profile gives it again in that media.
                    try await admin.unnameSpeaker(mediaID: next, number: recognised.number)
                    #expect(try await admin.speakers(mediaID: next).allSatisfy { $0.name == nil })
        }
    }

    @Test("a language correction that asks some chunks again keeps the chapter's speakers: its turns come from all of its audio, not from the chunks asked again")
    func languageCorrectionKeepsSpeakers() async throws {
        let (audio, _) = try SpeakerReference.load("synth-two")
        try await Self.withFleet { client, db, admin in
            let mediaID = try await Self.enqueue(client, audio.path)
            #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
            let turns = try await admin.speakerTurns(mediaID: mediaID)
            let numbers = try await admin.speakers(mediaID: mediaID).map(\.number)
            let labels = { try await client.query("SELECT speaker FROM segments WHERE media_id = \(mediaID) ORDER BY chapter_id, index").map { try $0.decode("speaker", as: Int?.self) } }
            let labelsBefore = try await labels()
            #expect(numbers == [1, 2] && !turns.isEmpty)
            // Every chunk answered in English but the last, answered in French before the
            // language was given: `steno retry --language en` asks that one again.
            try await client.query(
                """
                UPDATE chunks SET language = CASE WHEN index = (SELECT max(index) FROM chunks WHERE media_id = \(mediaID) AND uploaded) THEN 'fr' ELSE 'en' END
                WHERE media_id = \(mediaID) AND uploaded
                """)
            let correction = try await admin.transcribeAgain(mediaID: mediaID, language: "en", multilingual: false)
            #expect(correction.requeuedChunks == 1)
            #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
            #expect(try await admin.speakerTurns(mediaID: mediaID) == turns, "the chapter's turns were rebuilt from the chunk asked again")
            #expect(try await admin.speakers(mediaID: mediaID).map(\.number) == numbers)
            #expect(try await labels() == labelsBefore)
            #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND voices IS NOT NULL", mediaID) == 0, "the chunk asked again keeps its voices")
        }
    }

    @Test("one narrator over three chapters is one speaker, and the exports carry no labels")
    func oneNarrator() async throws {
        let book = FixtureBook.file("book.m4b")
        try await Self.withFleet(configure: { $0.planner.targetDuration = MediaTime(seconds: 4) }) { _, db, admin in
                    let mediaID = try await db.enqueue(book.path)
                    #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
                    #expect(try await admin.speakers(mediaID: mediaID).map(\.number) == [1])
                    let source = try await admin.transcriptSource(mediaID: mediaID)
                    #expect(source.outline.speakers == nil)
                    for format in TranscriptFormat.allCases {
                        var text = ""
                        try await admin.exportTranscript(source, format: format) { text += $0 }
                        #expect(!text.contains("Speaker 1") && !text.contains("\"speaker\""), "\(format) shows no speaker")
                    }
        }
    }

    @Test("speakers off for a media: no voices measured, no speakers, exports as before")
    func offPerMedia() async throws {
        let (audio, _) = try SpeakerReference.load("synth-two")
        try await Self.withFleet { client, db, admin in
            let mediaID = try await Self.enqueue(client, audio.path, speakers: "off")
            #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
            #expect(try await db.count("SELECT count(*) FROM chunks WHERE media_id = $1 AND uploaded AND voices IS NOT NULL", mediaID) == 0)
            #expect(try await db.count("SELECT count(*) FROM segments WHERE media_id = $1 AND speaker IS NOT NULL", mediaID) == 0)
            #expect(try await admin.speakers(mediaID: mediaID).isEmpty)
        }
    }

    @Test("a worker with speaker detection off measures nothing; the media still succeeds")
    func offPerWorker() async throws {
        let (audio, _) = try SpeakerReference.load("synth-two")
        try await Self.withFleet(configure: { $0.speakerDetection = false }) { client, db, admin in
            let mediaID = try await Self.enqueue(client, audio.path)
            #expect(try await db.waitForMedia(mediaID, in: ["succeeded", "failed", "cancelled"]) == "succeeded")
            #expect(try await db.count("SELECT count(*) FROM segments WHERE media_id = $1 AND speaker IS NOT NULL", mediaID) == 0)
            #expect(try await admin.speakers(mediaID: mediaID).isEmpty)
        }
    }
}

extension Array {
    fileprivate var adjacentPairs: [(Element, Element)] {
        count < 2 ? [] : (1..<count).map { (self[$0 - 1], self[$0]) }
    }
}
