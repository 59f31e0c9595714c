import StenoCore
import Testing

@Suite("Answer gates")
struct AnswerGateTests {
    let gate = AnswerGate()
    /// A chunk from 60 to 120 s: speech from 61 to 80 s and from 95 to 118 s; music between.
    let chunk = 60.0...120.0
    let speech = [61.0...80.0, 95.0...118.0]

    func review(_ segments: [AnswerGate.Segment], words: [TimedWord] = []) -> AnswerGate.Review {
        gate.review(text: segments.map(\.text).joined(separator: " "), segments: segments, words: words, chunk: chunk, speech: speech)
    }

    @Test("sentences over speech pass untouched, with all their words")
    func speechPasses() {
        let words = [TimedWord(word: "After", start: 62, end: 62.4), TimedWord(word: "the", start: 62.4, end: 62.5), TimedWord(word: "break", start: 62.5, end: 63)]
        let result = review([.init(start: 61.5, end: 66, text: "After the break we walked to the harbour."),
                             .init(start: 96, end: 99, text: "Thank you.")], words: words)
        #expect(result.passed)
        #expect(result.words == words)
        #expect(result.segments.count == 2)
    }

    @Test("a segment stamped over music, far from any speech, is flagged with its words")
    func outsideSpeech() {
        let words = [TimedWord(word: "You", start: 86, end: 86.5), TimedWord(word: "After", start: 96, end: 96.4)]
        let result = review([.init(start: 85.5, end: 87, text: "You"), .init(start: 95.5, end: 98, text: "After the break.")], words: words)
        #expect(result.flagged.map(\.reason) == [.outsideSpeech])
        #expect(result.flagged.first?.text == "You")
        #expect(result.words.map(\.word) == ["After"])
        #expect(result.text == "After the break.")
    }

    @Test("known phrases over too little speech are flagged; the same phrase spoken is kept")
    func knownPhrases() {
        // Over the last 0.4 s of speech and then music: not enough for 20 characters.
        let invented = review([.init(start: 79.6, end: 83, text: "Thank you for watching.")])
        #expect(invented.flagged.map(\.reason) == [.knownHallucination])
        let spoken = review([.init(start: 100, end: 102, text: "Thank you for watching.")])
        #expect(spoken.passed)
    }

    @Test("loops are flagged: one word, a phrase, or text that compresses like a loop", arguments: [
        "the the the the the the",
        "I'm sorry. I'm sorry. I'm sorry. I'm sorry.",
        "And so we went on and on and on and on and on and on and on and on and on and on and on.",
    ])
    func loops(_ text: String) {
        #expect(review([.init(start: 100, end: 110, text: text)]).flagged.map(\.reason) == [.repetition])
    }

    @Test("ordinary repetition is not a loop")
    func ordinaryRepetition() {
        #expect(review([.init(start: 100, end: 108, text: "No, no, no. I said the boat, not the boathouse, and the boat is gone.")]).passed)
    }

    @Test("more characters than anyone speaks in the speech under them is flagged")
    func tooFast() {
        // 2 s of speech within a second of this segment, for 90 letters.
        let result = gate.review(
            text: "", segments: [.init(start: 81, end: 82, text: "The lighthouse keeper climbed the stairs every evening and lit the lamp for the ships.")],
            words: [], chunk: chunk, speech: [79.5...80.5, 82.5...83.5])
        #expect(result.flagged.map(\.reason) == [.tooFast])
    }

    @Test("Whisper's own rule: no_speech_prob above 0.6 with avg_logprob below -1")
    func backendNoSpeech() {
        #expect(review([.init(start: 100, end: 103, text: "Some words here.", noSpeechProbability: 0.8, averageLogProbability: -1.3)])
            .flagged.map(\.reason) == [.noSpeech])
        #expect(review([.init(start: 100, end: 103, text: "Some words here.", noSpeechProbability: 0.8, averageLogProbability: -0.4)]).passed)
    }

    @Test("an answer without segments is judged whole against the chunk's speech")
    func jsonOnly() {
        let chunk = 0.0...30.0
        let silent = gate.review(text: "You", segments: [], words: [], chunk: chunk, speech: [])
        #expect(silent.flagged.map(\.reason) == [.outsideSpeech])
        #expect(silent.text.isEmpty)
        let blip = gate.review(text: "Thank you.", segments: [], words: [], chunk: chunk, speech: [10.0...10.2])
        #expect(blip.flagged.map(\.reason) == [.knownHallucination])
        let real = gate.review(text: "After the break we walked to the harbour.", segments: [], words: [], chunk: chunk, speech: [2.0...6.0])
        #expect(real.passed)
        #expect(real.text == "After the break we walked to the harbour.")
    }

    @Test("phrases are compared without case or punctuation")
    func normalization() {
        #expect(HallucinationPhrases.contains("  Thanks for watching!  "))
        #expect(HallucinationPhrases.contains("THANK YOU."))
        #expect(!HallucinationPhrases.contains("Thank you, keeper."))
    }
}
