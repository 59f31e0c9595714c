import Foundation
import Testing

@testable import StenoCore

/// Unit vectors near one of a few directions: voices with a little spread, from a fixed generator.
private struct Voices {
    var state: UInt64 = 2026

    mutating func random() -> Float {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(state >> 40) / Float(1 << 24)
    }

    /// A direction of its own per voice: a block of 32 dimensions raised, the rest low.
    func centre(_ voice: Int) -> [Float] {
        (0..<VoicePiece.dimensions).map { $0 / 24 == voice ? 1 : 0.05 }
    }

    mutating func sample(_ voice: Int, spread: Float = 0.15) -> [Float] {
        SpeakerClustering.normalized(centre(voice).map { $0 + (random() - 0.5) * 2 * spread })
    }
}

@Suite("Speakers: pieces, clustering, numbering, labels")
struct SpeakerTests {
    @Test("speech is covered by windows of exactly 1.6 s from its start to its end, shorter speech is one piece, too-short speech is left out")
    func piecePlan() {
        let pieces = VoicePiece.plan(speech: [0.0...0.2, 1.0...4.0, 5.0...6.0, 9.5...12.0, 13...16.4], within: 0.5..<15.0)
        #expect(pieces.count == 2 + 1 + 2 + 2)
        #expect(abs(pieces[0].lowerBound - 1.0) < 1e-9 && abs(pieces[0].upperBound - 2.6) < 1e-9)
        #expect(abs(pieces[1].lowerBound - 2.4) < 1e-9 && pieces[1].upperBound == 4.0)
        #expect(pieces[2] == 5.0...6.0)
        #expect(abs(pieces[3].upperBound - 11.1) < 1e-9 && abs(pieces[4].lowerBound - 10.4) < 1e-9)
        // Speech past the range is cut at it.
        #expect(pieces[5].lowerBound == 13 && pieces[6].upperBound == 15)
        #expect(pieces.allSatisfy { $0.upperBound - $0.lowerBound <= VoicePiece.longest + 1e-9 })
        // Without speech regions (detection off), the range itself.
        #expect(VoicePiece.plan(speech: nil, within: 0..<3).count == 2)
    }

    @Test("stored pieces read back with their times exact and their embeddings within half a step of 1/127 of the largest magnitude")
    func storedRoundTrip() throws {
        var voices = Voices()
        let pieces = (0..<5).map { VoicePiece(start: Double($0) * 1.25, end: Double($0) * 1.25 + 1.1, embedding: voices.sample($0 % 3)) }
        let bytes = VoicePiece.encode(pieces)
        #expect(bytes.count == 1 + 5 * VoicePiece.storedSize)
        guard case .pieces(let decoded) = try #require(VoicePiece.decode(bytes)) else {
            Issue.record("this release's pieces read as another encoder's")
            return
        }
        #expect(decoded.map(\.start) == pieces.map(\.start) && decoded.map(\.end) == pieces.map(\.end))
        for (got, original) in zip(decoded, pieces) {
            let scale = original.embedding.map(abs).max()!
            #expect(zip(got.embedding, original.embedding).allSatisfy { abs($0 - $1) <= scale / 127 / 2 + 1e-6 })
            #expect(SpeakerClustering.dot(SpeakerClustering.normalized(got.embedding), original.embedding) > 0.9999)
        }
        #expect(VoicePiece.decode(Array(bytes.dropLast())) == nil)
        #expect(VoicePiece.decode([]) == .pieces([]))
    }

    @Test("pieces the earlier encoder stored (GE2E, 276 bytes each, no format byte) read as another encoder's, not as pieces")
    func earlierEncoderPieces() {
        #expect(VoicePiece.decode([UInt8](repeating: 7, count: 276 * 3)) == .otherEncoder)
        #expect(VoicePiece.decode([UInt8](repeating: 7, count: 276)) == .otherEncoder)
    }

    @Test("a piece in two overlapping chunks is kept once, by the chunk on its side of the overlap's middle")
    func ownedPieces() {
        let embedding = [Float](repeating: 1, count: VoicePiece.dimensions)
        func piece(_ start: Double, _ end: Double) -> VoicePiece { VoicePiece(start: start, end: end, embedding: embedding) }
        // Chunks 0-20.75 and 19.25-40: the cut is at 20.
        let kept = VoicePiece.owned(byChunks: [
            (0..<20.75, [piece(17, 18.5), piece(19.3, 20.6)]),
            (19.25..<40, [piece(19.3, 20.6), piece(20.6, 22)]),
        ])
        #expect(kept.map(\.start) == [17, 19.3, 20.6])
    }

    @Test("voices are grouped by themselves, in order of first appearance, however many pieces each has")
    func clustersByThemselves() {
        var voices = Voices()
        let order = [0, 0, 1, 1, 0, 2, 2, 1, 0, 2, 3, 0, 0, 1]
        let labels = SpeakerClustering().labels(of: order.map { voices.sample($0) })
        #expect(labels == order)
    }

    @Test("a number of speakers given, or bounds, is kept even where the threshold would say otherwise")
    func countGiven() throws {
        var voices = Voices()
        let order = [0, 1, 2, 0, 1, 2, 3, 3]
        let embeddings = order.map { voices.sample($0) }
        #expect(Set(SpeakerClustering().labels(of: embeddings, count: .exactly(2))).count == 2)
        #expect(Set(SpeakerClustering().labels(of: embeddings, count: SpeakerCount(minimum: 5))).count == 5)
        #expect(Set(SpeakerClustering().labels(of: embeddings, count: SpeakerCount(maximum: 3))).count == 3)
        // One voice stays one however many pieces it has.
        #expect(Set(SpeakerClustering().labels(of: (0..<300).map { _ in voices.sample(1) })).count == 1)
        #expect(try SpeakerCount(parsing: "2-4") == SpeakerCount(minimum: 2, maximum: 4))
        #expect(try SpeakerCount(parsing: "3") == .exactly(3))
        #expect(try SpeakerCount(parsing: "-6") == SpeakerCount(maximum: 6))
        #expect(try SpeakerCount(parsing: "auto") == .automatic)
        for bad in ["0", "5-2", "-", "x", "65"] {
            #expect(throws: SpeakerCountError.self) { try SpeakerCount(parsing: bad) }
        }
    }

    @Test("past the block limit, blocks are clustered first and their groups joined: the same voices come out")
    func blocksAgree() {
        var voices = Voices()
        let order = (0..<900).map { ($0 / 7) % 3 }
        let embeddings = order.map { voices.sample($0) }
        #expect(SpeakerClustering(blockLimit: 200).labels(of: embeddings) == order)
    }

    @Test("a later chapter's voices keep the numbers the earlier chapters gave; a new voice gets the next number")
    func numbersNeverChange() {
        var voices = Voices()
        let chapterOne = ChapterSpeakerPlan(
            pieces: [0, 1, 0, 1].enumerated().map { VoicePiece(start: Double($0.offset * 2), end: Double($0.offset * 2) + 1.5, embedding: voices.sample($0.element)) },
            count: .automatic)
        let first = chapterOne.resolve(known: [])
        #expect(first.numbers == [1, 2])
        let known = first.voices.map { SpeakerAssignment.Voice(number: $0.number, sum: $0.sum, pieces: $0.pieces) }
        // Chapter two opens with the second voice, then a third, then the first.
        let chapterTwo = ChapterSpeakerPlan(
            pieces: [1, 2, 0, 2].enumerated().map { VoicePiece(start: Double($0.offset * 2), end: Double($0.offset * 2) + 1.5, embedding: voices.sample($0.element)) },
            count: .automatic)
        let second = chapterTwo.resolve(known: known)
        #expect(second.numbers == [2, 3, 1])
        #expect(second.turns.map(\.speaker) == [2, 3, 1, 3])
        // A number given before and left without a voice is never given again.
        #expect(chapterTwo.resolve(known: known, reserving: [1, 2, 3]).numbers == [2, 4, 1])
        // A voice with under 2 s in a chapter and like no known one is not a new speaker.
        var brief = SpeakerAssignment()
        brief.smallestNewSpeaker = 10
        #expect(chapterTwo.resolve(known: known, assignment: brief).numbers == [2, 2, 1] || chapterTwo.resolve(known: known, assignment: brief).numbers == [2, 1, 1])
        // At the maximum, a new voice goes to the closest known one.
        var bounded = chapterTwo
        bounded.count = SpeakerCount(maximum: 2)
        #expect(bounded.resolve(known: known).numbers.allSatisfy { $0 <= 2 })
    }

    @Test("turns join a speaker's pieces across pauses; a word in a pause takes the nearest speaker")
    func turnsAndLookup() {
        let turns = SpeakerTurn.turns(of: [0...1.5, 1.6...3, 3.4...4.5, 5...6], speakers: [1, 1, 2, 1])
        #expect(turns == [SpeakerTurn(start: 0, end: 3, speaker: 1), SpeakerTurn(start: 3.4, end: 4.5, speaker: 2), SpeakerTurn(start: 5, end: 6, speaker: 1)])
        #expect(SpeakerTurn.speaker(at: 3.1, in: turns) == 1)
        #expect(SpeakerTurn.speaker(at: 3.3, in: turns) == 2)
        #expect(SpeakerTurn.speaker(at: 4, in: turns) == 2)
        #expect(SpeakerTurn.speaker(at: 99, in: turns) == 1)
        #expect(SpeakerTurn.speaker(at: -1, in: turns) == 1)
        #expect(SpeakerTurn.speaker(at: 1, in: []) == nil)
    }

    @Test("a sentence whose words change speaker is split between the right two words")
    func sentencesSplitAtTheTurn() {
        let turns = [SpeakerTurn(start: 0, end: 2.05, speaker: 1), SpeakerTurn(start: 2.3, end: 4, speaker: 2)]
        let words = [("Are", 0.1, 0.4), ("you", 0.45, 0.7), ("coming?", 0.75, 2.0), ("Yes,", 2.35, 2.6), ("soon.", 2.7, 3.1)]
            .map { TimedWord(word: $0.0, start: $0.1, end: $0.2) }
        let sentence = MergedSentence(start: 0.1, end: 3.1, text: "Are you coming? Yes, soon.", words: words)
        let labelled = SpeakerLabeling.label([sentence], turns: turns)
        #expect(labelled.map(\.text) == ["Are you coming?", "Yes, soon."])
        #expect(labelled.map(\.speaker) == [1, 2])
        #expect(labelled[0].end == 2.0 && labelled[1].start == 2.35)
        #expect(labelled[1].words.allSatisfy { $0.speaker == 2 })
        // Without word times, the speaker holding most of the sentence's span.
        let untimed = SpeakerLabeling.label([MergedSentence(start: 1.8, end: 3.9, text: "Yes, soon.", words: [])], turns: turns)
        #expect(untimed.map(\.speaker) == [2])
        // Flagged text is left alone.
        let flagged = MergedSentence(start: 0, end: 1, text: "x", words: [], flag: .repetition)
        #expect(SpeakerLabeling.label([flagged], turns: turns) == [flagged])
    }

    @Test("a tenant's profile names the closest matching speaker, each profile once, never a voice too far")
    func profilesMatch() {
        var voices = Voices()
        var speakers: [SpeakerAssignment.Voice] = []
        for voice in 0..<3 {
            speakers.append(SpeakerAssignment.Voice(number: voice + 1, sum: SpeakerClustering.sum((0..<20).map { _ in voices.sample(voice) }), pieces: 20))
        }
        let profiles = [
            VoiceProfileMatch.Profile(id: 7, name: "Ada", sum: voices.sample(1)),
            VoiceProfileMatch.Profile(id: 8, name: "Grace", sum: voices.sample(5)),
        ]
        let matches = VoiceProfileMatch().matches(speakers: speakers, profiles: profiles)
        #expect(matches.map(\.number) == [2])
        #expect(matches.first?.name == "Ada")
        #expect((matches.first?.similarity ?? 0) > 0.9)
    }

    @Test("exports name speakers where there are two or more: JSON fields, SRT names at a change, WebVTT voices, text turns, podcast fields")
    func exportsWithSpeakers() throws {
        var transcript = Transcript(
            mediaID: 3, title: nil, source: "talk.m4a", language: "en", durationSeconds: 6,
            chapters: [Transcript.Chapter(number: 1, title: nil, start: 0, end: 6, state: .succeeded, text: "Hello there. Hi. How are you?", segments: [
                Transcript.Segment(start: 0, end: 1.5, text: "Hello there.", words: [Transcript.Word(word: "Hello", start: 0, end: 0.6, speaker: "Ada")], speaker: "Ada"),
                Transcript.Segment(start: 2, end: 2.5, text: "Hi.", speaker: "Speaker 2"),
                Transcript.Segment(start: 3, end: 4, text: "How are you?", speaker: "Speaker 2"),
            ])])
        transcript.speakers = [Transcript.Speaker(number: 1, name: "Ada", talkSeconds: 1.5), Transcript.Speaker(number: 2, name: "Speaker 2", talkSeconds: 1.5)]
        let json = try TranscriptEncoder.encode(transcript, format: .json)
        let decoded = try JSONDecoder().decode(Transcript.self, from: Data(json.utf8))
        #expect(decoded.speakers == transcript.speakers)
        #expect(decoded.chapters[0].segments.map(\.speaker) == ["Ada", "Speaker 2", "Speaker 2"])
        #expect(decoded.chapters[0].segments[0].words?.first?.speaker == "Ada")
        let srt = try TranscriptEncoder.encode(transcript, format: .srt)
        #expect(srt.contains("Ada: Hello there."))
        #expect(srt.contains("Speaker 2: Hi."))
        #expect(srt.contains("\nHow are you?"), "the name is written where the speaker changes, not on every cue")
        #expect(!srt.contains("Speaker 2: How"))
        let vtt = try TranscriptEncoder.encode(transcript, format: .vtt)
        #expect(vtt.contains("<v Ada>Hello there.") && vtt.contains("<v Speaker 2>How are you?"))
        let text = try TranscriptEncoder.encode(transcript, format: .txt)
        #expect(text == "Ada: Hello there.\n\nSpeaker 2: Hi. How are you?\n")
        let podcast = try TranscriptEncoder.encode(transcript, format: .podcast)
        #expect(podcast.contains("\"speaker\" : \"Ada\""))
        // One speaker, or none: exactly the export without speakers.
        var plain = transcript
        plain.speakers = nil
        for index in plain.chapters[0].segments.indices { plain.chapters[0].segments[index].speaker = nil }
        plain.chapters[0].segments[0].words?[0].speaker = nil
        #expect(try TranscriptEncoder.encode(plain, format: .txt) == "Hello there. Hi. How are you?\n")
        #expect(!(try TranscriptEncoder.encode(plain, format: .json)).contains("speaker"))
    }
}
