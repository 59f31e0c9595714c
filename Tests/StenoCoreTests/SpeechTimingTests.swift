import StenoCore
import Testing

@Suite("Times that follow the speech")
struct SpeechTimingTests {
    @Test("words stamped in music or silence move onto the nearest speech, in order; words on speech stay")
    func snapping() {
        let speech = [10.0...14.0, 20.0...25.0]
        let words = [
            TimedWord(word: "Early", start: 7.0, end: 7.4),  // in the music before the speech
            TimedWord(word: "start", start: 8.8, end: 10.3),  // reaches far back into the music: cut to where the detector may have been late
            TimedWord(word: "late", start: 16.0, end: 16.5),  // in the pause: nearer the first stretch's end
            TimedWord(word: "next", start: 18.6, end: 19.0),  // nearer the second stretch's start
            TimedWord(word: "inside", start: 21.0, end: 21.5),
            TimedWord(word: "across", start: 24.5, end: 26.0),  // runs well past the speech: cut
        ]
        let snapped = SpeechSnap.words(words, onto: speech)
        let lead = SpeechSnap.onsetLag
        let lag = SpeechSnap.offsetLag
        #expect(snapped.map(\.word) == words.map(\.word))
        // Moved to where the voice may begin: the detector hears it up to `onsetLag` late.
        #expect(abs(snapped[0].start - (10.0 - lead)) < 1e-9 && abs(snapped[0].end - (10.4 - lead)) < 1e-9)
        // Cut to the same edge, and not before the word before it.
        #expect(abs(snapped[1].start - (10.0 - lead)) < 1e-9 && snapped[1].end == 10.3)
        // In the pause: nearer the first stretch's end, moved to just after it.
        #expect(abs(snapped[2].end - (14.0 + lag)) < 1e-9 && abs(snapped[2].start - (13.5 + lag)) < 1e-9)
        #expect(abs(snapped[3].start - (20.0 - lead)) < 1e-9)
        #expect(snapped[4] == words[4])
        #expect(snapped[5].start == 24.5 && abs(snapped[5].end - (25.0 + lag)) < 1e-9)
        #expect(zip(snapped, snapped.dropFirst()).allSatisfy { $0.start <= $1.start })
        #expect(snapped.allSatisfy { word in
            speech.contains { $0.lowerBound - lead - 1e-9 <= word.start && word.end <= $0.upperBound + lag + 1e-9 }
        })
        // No speech known: nothing moves.
        #expect(SpeechSnap.words(words, onto: []) == words)
    }

    @Test("no caption cue stays up longer than 7 s, even for a slow sentence that fits in two lines")
    func cuesAtMostSevenSeconds() {
        let words = ["Slowly", "the", "keeper", "climbed", "the", "stairs."].enumerated().map { index, word in
            Transcript.Word(word: word, start: Double(index) * 2, end: Double(index) * 2 + 1.5)
        }
        let segment = Transcript.Segment(start: 0, end: 11.5, text: words.map(\.word).joined(separator: " "), words: words)
        let cues = CaptionCueBuilder().cues(forSegments: [segment])
        #expect(cues.count >= 2)
        #expect(cues.allSatisfy { $0.end - $0.start <= 7 + 1e-9 }, "\(cues.map { $0.end - $0.start })")
        #expect(cues.flatMap(\.lines).joined(separator: " ") == segment.text)
        // One word stamped over 12 s is shown for 7.
        let long = Transcript.Segment(start: 0, end: 12, text: "Hmm.")
        #expect(CaptionCueBuilder().cues(forSegments: [long]).first.map { $0.end - $0.start } == 7)
    }
}
