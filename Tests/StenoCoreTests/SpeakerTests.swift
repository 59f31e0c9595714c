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

    /// A direction of its own per voice: a block of 24 dimensions raised, the rest low.
    func centre(_ voice: Int) -> [Float] {
        (0..<VoiceEmbedding.dimensions).map { $0 / 24 == voice ? 1 : 0.05 }
    }

    mutating func sample(_ voice: Int, spread: Float = 0.15) -> [Float] {
        VoiceEmbedding.normalized(centre(voice).map { $0 + (random() - 0.5) * 2 * spread })
    }
}

/// Test windows: who talks in which frames, each stretch of one local speaker alone a piece
/// with that voice's embedding.
private struct Talk {
    var local: Int
    var frames: Range<Int>
    var voice: Int
}

private func window(
    at start: Double, _ talk: [Talk], owned: Range<Int> = 0..<SegmentedWindow.frames, voices: inout Voices
) -> SegmentedWindow {
    var activity = [UInt8](repeating: 0, count: SegmentedWindow.frames)
    for item in talk {
        for frame in item.frames { activity[frame] |= 1 << UInt8(item.local) }
    }
    var pieces: [SegmentedWindow.Piece] = []
    for item in talk {
        let alone = item.frames.filter { activity[$0] == 1 << UInt8(item.local) && owned.contains($0) }
        guard let first = alone.first, let last = alone.last, alone.count > 20 else { continue }
        pieces.append(SegmentedWindow.Piece(local: item.local, frames: first..<(last + 1), embedding: voices.sample(item.voice)))
    }
    return SegmentedWindow(start: start, activity: activity, owned: owned, pieces: pieces)
}

/// A chapter's group as the numbering reads it.
private func group(_ index: Int, _ voice: [Float], seconds: Double = 10, first: Double, number: Int = 99) -> ChapterSpeakerPlan.ChapterVoice {
    ChapterSpeakerPlan.ChapterVoice(group: index, number: number, sum: voice.map { $0 * 5 }, pieces: 5, seconds: seconds, firstHeard: first)
}

@Suite("Speakers: windows, clustering, plans, final numbers, labels")
struct SpeakerTests {
    @Test("stored windows read back with their activity, owned frames and pieces exact and their embeddings within half a step of 1/127 of the largest magnitude")
    func storedRoundTrip() throws {
        var voices = Voices()
        let windows = [
            window(at: 12.5, [Talk(local: 0, frames: 0..<200, voice: 0), Talk(local: 2, frames: 150..<400, voice: 1)], owned: 148..<444, voices: &voices),
            window(at: 17.5, [Talk(local: 1, frames: 10..<589, voice: 2)], voices: &voices),
        ]
            // A chunk shorter than a window is read as it is: fewer frames.
            + [SegmentedWindow(start: 30, activity: [UInt8](repeating: 1, count: 120), owned: 0..<120, pieces: [])]
        let bytes = SegmentedWindow.encode(windows)
        guard case .windows(let decoded) = try #require(SegmentedWindow.decode(bytes)) else {
            Issue.record("this release's windows read as another pass's")
            return
        }
        #expect(decoded.count == 3)
        #expect(decoded[2] == windows[2])
        for (got, original) in zip(decoded, windows) {
            #expect(got.start == original.start && got.activity == original.activity && got.owned == original.owned)
            #expect(got.pieces.map(\.local) == original.pieces.map(\.local) && got.pieces.map(\.frames) == original.pieces.map(\.frames))
            for (piece, source) in zip(got.pieces, original.pieces) {
                let scale = source.embedding.map(abs).max()!
                #expect(zip(piece.embedding, source.embedding).allSatisfy { abs($0 - $1) <= scale / 127 / 2 + 1e-6 })
                #expect(VoiceEmbedding.dot(VoiceEmbedding.normalized(piece.embedding), source.embedding) > 0.9999)
            }
        }
        #expect(SegmentedWindow.decode(Array(bytes.dropLast())) == nil)
        #expect(SegmentedWindow.decode([]) == .windows([]))
    }

    @Test("what earlier passes stored (GE2E's 276-byte pieces, CAM++ pieces of format 2) reads as another pass's, not as windows")
    func earlierPasses() {
        #expect(SegmentedWindow.decode([UInt8](repeating: 7, count: 276 * 3)) == .otherPass)
        #expect(SegmentedWindow.decode([2] + [UInt8](repeating: 7, count: 212 * 2)) == .otherPass)
        #expect(SegmentedWindow.decode([9, 1, 2]) == nil)
    }

    @Test("two voices taking turns in a window are two groups, in order of first appearance, with one turn each time the voice changes")
    func twoVoicesTakeTurns() {
        var voices = Voices()
        let windows = [window(at: 0, [
            Talk(local: 0, frames: 0..<150, voice: 3), Talk(local: 1, frames: 160..<300, voice: 5),
            Talk(local: 0, frames: 300..<450, voice: 3), Talk(local: 1, frames: 450..<589, voice: 5),
        ], voices: &voices)]
        let plan = ChapterSpeakerPlan(windows: windows, speech: nil, count: .automatic)
        #expect(plan.groupCount == 2)
        #expect(plan.turns.filter { !$0.overlapping }.map(\.speaker) == [0, 1, 0, 1])
        #expect(plan.groupFirstHeard[0] < plan.groupFirstHeard[1])
        #expect(plan.groupSeconds.allSatisfy { $0 > 4 })
    }

    @Test("one voice the segmentation took for two local speakers is one speaker: the voices decide, not the window's labels")
    func oneVoiceTwoLocals() {
        var voices = Voices()
        let windows = [window(at: 0, [Talk(local: 0, frames: 0..<280, voice: 2), Talk(local: 1, frames: 300..<589, voice: 2)], voices: &voices)]
        #expect(ChapterSpeakerPlan(windows: windows, speech: nil, count: .automatic).groupCount == 1)
    }

    @Test("two voices at once: the one that talked alone carries the moment, the other is an overlapping turn over it")
    func overlap() {
        var voices = Voices()
        let windows = [window(at: 0, [Talk(local: 0, frames: 0..<400, voice: 1), Talk(local: 1, frames: 300..<589, voice: 4)], voices: &voices)]
        let plan = ChapterSpeakerPlan(windows: windows, speech: nil, count: .automatic)
        #expect(plan.groupCount == 2)
        let overlapping = plan.turns.filter(\.overlapping)
        #expect(overlapping.count == 1)
        let step = SegmentedWindow.frameStep
        #expect(abs(overlapping[0].start - 300 * step) < 0.05 && abs(overlapping[0].end - 400 * step) < 0.05)
        #expect(overlapping[0].speaker == 1)
        // Words go to the voice that carries the moment: the first, until it stops.
        #expect(SpeakerTurn.speaker(at: 350 * step, in: plan.turns.filter { !$0.overlapping }) == 0)
    }

    @Test("a second of something near a known voice (a cough, a laugh, crosstalk) is not a speaker of its own unless a count asks; a short turn of a clearly other voice is")
    func shortVoices() {
        var voices = Voices()
        let talk = [
            Talk(local: 0, frames: 0..<250, voice: 0), Talk(local: 2, frames: 260..<320, voice: 6), Talk(local: 1, frames: 330..<589, voice: 1),
        ]
        var windows = [window(at: 0, talk, voices: &voices)]
        // Neither voice 0 nor another: further from voice 0 than the clustering joins, nearer
        // than `distinctSpeaker`.
        let near = VoiceEmbedding.normalized(zip(voices.sample(0), voices.sample(6)).map { 0.3 * $0 + 0.95 * $1 })
        windows[0].pieces[1].embedding = near
        #expect(ChapterSpeakerPlan(windows: windows, speech: nil, count: .automatic).groupCount == 2)
        #expect(ChapterSpeakerPlan(windows: windows, speech: nil, count: .exactly(3)).groupCount == 3)
        // A second of a voice unlike both (cosine distance past 0.7): someone else.
        var again = Voices()
        #expect(ChapterSpeakerPlan(windows: [window(at: 0, talk, voices: &again)], speech: nil, count: .automatic).groupCount == 3)
        // Under a second, not even then.
        let blip = [Talk(local: 0, frames: 0..<250, voice: 0), Talk(local: 2, frames: 260..<300, voice: 6), Talk(local: 1, frames: 330..<589, voice: 1)]
        var third = Voices()
        #expect(ChapterSpeakerPlan(windows: [window(at: 0, blip, voices: &third)], speech: nil, count: .automatic).groupCount == 2)
    }

    @Test("outside the speech detector's regions no one talks: music the segmentation took for a voice stays unlabelled")
    func speechBounds() {
        var voices = Voices()
        let windows = [window(at: 0, [Talk(local: 0, frames: 0..<589, voice: 0)], voices: &voices)]
        let plan = ChapterSpeakerPlan(windows: windows, speech: [4.0...8.0], count: .automatic)
        #expect(plan.turns.count == 1)
        #expect(plan.turns[0].start >= 3.95 && plan.turns[0].end <= 8.05)
    }

    @Test("neighbouring windows each speak for the frames they own: a voice heard across them is one turn")
    func ownedFrames() {
        var voices = Voices()
        // Windows at 0 and 5 s; the first owns up to 7.5 s, the second from there.
        let handOver = Int((7.5 - 0.0495 + 0.0) / SegmentedWindow.frameStep)
        let windows = [
            window(at: 0, [Talk(local: 0, frames: 0..<589, voice: 2)], owned: 0..<handOver, voices: &voices),
            window(at: 5, [Talk(local: 2, frames: 0..<589, voice: 2)], owned: (handOver - 296)..<589, voices: &voices),
        ]
        let plan = ChapterSpeakerPlan(windows: windows, speech: nil, count: .automatic)
        #expect(plan.groupCount == 1)
        #expect(plan.turns.count == 1 && plan.turns[0].start < 0.1 && plan.turns[0].end > 14.9)
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

    @Test("the media's final numbers go by first appearance in the recording, join chapters by voice, and keep one chapter's groups apart")
    func finalNumbers() {
        var voices = Voices()
        let a = voices.sample(0), b = voices.sample(1), c = voices.sample(2)
        // Chapter 1 hears B first (at 3 s), then A; chapter 2 hears C, then A again.
        let chapters = [
            [group(0, b, first: 3), group(1, a, first: 5)],
            [group(0, c, first: 60), group(1, voices.sample(0), first: 70)],
        ]
        let numbers = MediaSpeakerNumbering().numbers(chapters: chapters, count: .automatic)
        #expect(numbers == [[1, 2], [3, 2]])
        // The provisional numbers the merges gave, in whatever order they ran, change nothing.
        var shuffled = chapters
        shuffled[0][0].number = 3
        shuffled[1][1].number = 1
        #expect(MediaSpeakerNumbering().numbers(chapters: shuffled, count: .automatic) == numbers)
        // Two groups of one chapter that sound alike stay two: the chapter's clustering told them apart.
        let alike = [[group(0, a, first: 0), group(1, voices.sample(0), first: 4)], [group(0, voices.sample(0), first: 50)]]
        let kept = MediaSpeakerNumbering().numbers(chapters: alike, count: .automatic)
        #expect(Set(kept[0]).count == 2)
    }

    @Test("the media's count is held: an exact number, a most, a least; a speaker with under a second of talk joins the closest")
    func finalCount() {
        var voices = Voices()
        let chapters = [
            [group(0, voices.sample(0), first: 0), group(1, voices.sample(1), first: 2)],
            [group(0, voices.sample(2), first: 40), group(1, voices.sample(3), seconds: 0.6, first: 45)],
        ]
        let numbering = MediaSpeakerNumbering()
        #expect(Set(numbering.numbers(chapters: chapters, count: .automatic).flatMap { $0 }) == [1, 2, 3])
        #expect(Set(numbering.numbers(chapters: chapters, count: .exactly(4)).flatMap { $0 }).count == 4)
        #expect(Set(numbering.numbers(chapters: chapters, count: SpeakerCount(maximum: 2)).flatMap { $0 }).count == 2)
        #expect(Set(numbering.numbers(chapters: chapters, count: .exactly(2)).flatMap { $0 }).count == 2)
    }

    @Test("final turns take their group's number: neighbouring turns of one speaker join, a speaker never overlaps themselves")
    func renumberedTurns() {
        let turns = [
            SpeakerTurn(start: 0, end: 2, speaker: 5, group: 0), SpeakerTurn(start: 2.2, end: 4, speaker: 6, group: 1),
            SpeakerTurn(start: 3, end: 3.5, speaker: 7, overlapping: true, group: 2), SpeakerTurn(start: 5, end: 6, speaker: 7, group: 2),
        ]
        let final = MediaSpeakerNumbering.renumbered(turns, numbers: [0: 1, 1: 1, 2: 2])
        #expect(final.filter { !$0.overlapping }.map { [$0.start, $0.end, Double($0.speaker)] } == [[0, 4, 1], [5, 6, 2]])
        #expect(final.filter(\.overlapping).map(\.speaker) == [2])
        let same = MediaSpeakerNumbering.renumbered(turns, numbers: [0: 1, 1: 2, 2: 2])
        #expect(same.filter(\.overlapping).isEmpty)
    }

    @Test("while a media is in progress, a later chapter's voices take the numbers the earlier chapters gave; a new voice the next number")
    func provisionalNumbers() {
        var voices = Voices()
        let one = ChapterSpeakerPlan(windows: [window(at: 0, [
            Talk(local: 0, frames: 0..<280, voice: 0), Talk(local: 1, frames: 300..<589, voice: 1),
        ], voices: &voices)], speech: nil, count: .automatic)
        let first = one.resolve(known: [])
        #expect(first.numbers == [1, 2])
        #expect(first.turns.map(\.group) == [0, 1])
        let known = first.voices.map { SpeakerAssignment.Voice(number: $0.number, sum: $0.sum, pieces: $0.pieces) }
        let two = ChapterSpeakerPlan(windows: [window(at: 100, [
            Talk(local: 2, frames: 0..<190, voice: 1), Talk(local: 0, frames: 200..<390, voice: 2), Talk(local: 1, frames: 400..<589, voice: 0),
        ], voices: &voices)], speech: nil, count: .automatic)
        let second = two.resolve(known: known)
        #expect(second.numbers == [2, 3, 1])
        #expect(second.turns.map(\.speaker) == [2, 3, 1])
    }

    @Test("a word in a pause takes the nearest speaker; turns stored before overlap and groups existed read back unchanged")
    func lookupAndStoredTurns() throws {
        let turns = [SpeakerTurn(start: 0, end: 3, speaker: 1), SpeakerTurn(start: 3.4, end: 4.5, speaker: 2), SpeakerTurn(start: 5, end: 6, speaker: 1)]
        #expect(SpeakerTurn.speaker(at: 3.1, in: turns) == 1)
        #expect(SpeakerTurn.speaker(at: 3.3, in: turns) == 2)
        #expect(SpeakerTurn.speaker(at: 4, in: turns) == 2)
        #expect(SpeakerTurn.speaker(at: 99, in: turns) == 1)
        #expect(SpeakerTurn.speaker(at: -1, in: turns) == 1)
        #expect(SpeakerTurn.speaker(at: 1, in: []) == nil)
        let old = try JSONDecoder().decode([SpeakerTurn].self, from: Data(#"[{"start":0,"end":3,"speaker":1}]"#.utf8))
        #expect(old == [SpeakerTurn(start: 0, end: 3, speaker: 1)])
        #expect(String(decoding: try JSONEncoder().encode(old[0]), as: UTF8.self).contains("overlapping") == false)
        let new = SpeakerTurn(start: 1, end: 2, speaker: 2, overlapping: true, group: 4)
        #expect(try JSONDecoder().decode(SpeakerTurn.self, from: JSONEncoder().encode(new)) == new)
    }

    @Test("sentences split where the chapter's group changes and take the group's number; a second voice over a turn labels nothing")
    func groupedLabels() {
        let turns = [
            SpeakerTurn(start: 0, end: 2.05, speaker: 4, group: 0), SpeakerTurn(start: 1.0, end: 2.0, speaker: 9, overlapping: true, group: 2),
            SpeakerTurn(start: 2.3, end: 4, speaker: 4, group: 1),
        ]
        let words = [("Are", 0.1, 0.4), ("you", 1.2, 1.5), ("coming?", 1.6, 2.0), ("Yes,", 2.35, 2.6), ("soon.", 2.7, 3.1)]
            .map { TimedWord(word: $0.0, start: $0.1, end: $0.2) }
        let sentence = MergedSentence(start: 0.1, end: 3.1, text: "Are you coming? Yes, soon.", words: words)
        let (labelled, groups) = SpeakerLabeling.label([sentence], groupedTurns: turns)
        // Two groups the provisional numbering gave one number: still split where the group changes.
        #expect(labelled.map(\.text) == ["Are you coming?", "Yes, soon."])
        #expect(labelled.map(\.speaker) == [4, 4] && groups == [0, 1])
        #expect(labelled.flatMap(\.words).allSatisfy { $0.speaker == 4 })
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
            speakers.append(SpeakerAssignment.Voice(number: voice + 1, sum: VoiceEmbedding.sum((0..<20).map { _ in voices.sample(voice) }), pieces: 20))
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
