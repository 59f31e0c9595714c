import Testing

@testable import StenoCore

@Suite("Transcript merge")
struct TranscriptMergerTests {
    private func words(_ text: String, from start: Double, step: Double = 0.4) -> [TimedWord] {
        text.split(separator: " ").enumerated().map { index, word in
            TimedWord(word: String(word), start: start + Double(index) * step, end: start + Double(index) * step + step * 0.8)
        }
    }

    @Test("words in the overlap are kept once, each side keeping its half")
    func overlapWithWordTimes() {
        // Chunk A hears 0..10.75 s, chunk B 9.25..20 s: the cut is at 10 s.
        let a = ChunkTranscript(start: 0, end: 10.75, text: "", segments: [], words: words("one two three four five", from: 8.4))
        let b = ChunkTranscript(start: 9.25, end: 20, text: "", segments: [], words: words("four five six seven", from: 9.6))
        let merged = TranscriptMerger().mergedWords([b, a], chapter: 0...20).map(\.word)
        #expect(merged == ["one", "two", "three", "four", "five", "six", "seven"])
    }

    @Test("without word times the repeated words are found by text")
    func overlapByText() {
        let a = ChunkTranscript(
            start: 0, end: 10.75, text: "the cat sat on the mat", segments: [TimedSegment(start: 0, end: 10.75, text: "the cat sat on the mat")], words: [])
        let b = ChunkTranscript(
            start: 9.25, end: 20, text: "on the mat and slept", segments: [TimedSegment(start: 9.25, end: 20, text: "on the mat and slept")], words: [])
        let merged = TranscriptMerger().mergedWords([a, b], chapter: 0...20).map(\.word)
        #expect(merged == ["the", "cat", "sat", "on", "the", "mat", "and", "slept"])
    }

    @Test("an empty chunk is skipped and its neighbours keep their words")
    func emptyChunk() {
        let a = ChunkTranscript(start: 0, end: 10.75, text: "", segments: [], words: words("alpha beta gamma", from: 9.0))
        let empty = ChunkTranscript(start: 9.25, end: 20.75, text: "", segments: [], words: [])
        let c = ChunkTranscript(start: 19.25, end: 30, text: "", segments: [], words: words("delta epsilon", from: 19.3))
        let merged = TranscriptMerger().mergedWords([a, empty, c], chapter: 0...30).map(\.word)
        #expect(merged == ["alpha", "beta", "gamma", "delta", "epsilon"])
    }

    @Test("sentences end at punctuation and long pauses, with increasing times inside the chapter")
    func sentences() {
        var spoken = words("Hello there. How are you", from: 1)
        spoken += words("fine thanks and you", from: 5)
        let sentences = TranscriptMerger().merge(
            [ChunkTranscript(start: 0, end: 10, text: "", segments: [], words: spoken)], chapter: 0...10)
        #expect(sentences.map(\.text) == ["Hello there.", "How are you", "fine thanks and you"])
        for (earlier, later) in zip(sentences, sentences.dropFirst()) {
            #expect(earlier.start <= later.start)
            #expect(earlier.end <= later.start)
        }
        #expect(sentences.allSatisfy { $0.start >= 0 && $0.end <= 10 && $0.start <= $0.end })
    }

    @Test("edge words heard differently by each side come from the side that heard them whole")
    func edgeWordsDiffer() {
        // The left side hears "stairs" cut off; the right side stamps its first word from its edge.
        var left = words("the keeper climbed the stay", from: 8.2)
        left[4].end = 10.75
        var right = words("limbed the stairs every evening", from: 9.0)
        right[0].start = 9.25
        let a = ChunkTranscript(start: 0, end: 10.75, text: "", segments: [], words: left)
        let b = ChunkTranscript(start: 9.25, end: 20, text: "", segments: [], words: right)
        let merged = TranscriptMerger().mergedWords([a, b], chapter: 0...20).map(\.word)
        #expect(merged == ["the", "keeper", "climbed", "the", "stairs", "every", "evening"])
    }

    @Test("a first word stamped from the chunk's edge is not lost to the time cut")
    func firstWordStampedFromTheEdge() {
        // Whisper stamps "man." from the right chunk's first instant (9.25 s), before the cut at
        // 10 s; "He" was really spoken at 10.3 s and the left side heard it too.
        let left = [TimedWord(word: "said", start: 8.6, end: 8.9), TimedWord(word: "the", start: 9.0, end: 9.2),
                    TimedWord(word: "man.", start: 9.3, end: 9.8), TimedWord(word: "He", start: 10.3, end: 10.5)]
        let right = [TimedWord(word: "man.", start: 9.25, end: 9.9), TimedWord(word: "He", start: 10.3, end: 10.5),
                     TimedWord(word: "answered", start: 10.5, end: 11.0), TimedWord(word: "quickly.", start: 11.1, end: 11.6)]
        let merged = TranscriptMerger().mergedWords(
            [ChunkTranscript(start: 0, end: 10.75, text: "", segments: [], words: left),
             ChunkTranscript(start: 9.25, end: 20, text: "", segments: [], words: right)], chapter: 0...20).map(\.word)
        #expect(merged == ["said", "the", "man.", "He", "answered", "quickly."])
    }

    @Test("chunks that meet at a clear pause are joined as they are")
    func noOverlap() {
        let a = ChunkTranscript(start: 0, end: 10, text: "", segments: [], words: words("the end of it.", from: 8))
        let b = ChunkTranscript(start: 10, end: 20, text: "", segments: [], words: words("The end of it.", from: 10.2))
        let merged = TranscriptMerger().mergedWords([a, b], chapter: 0...20).map(\.word)
        #expect(merged == ["the", "end", "of", "it.", "The", "end", "of", "it."])
    }

    /// Laid words begin `untimedLead` before each detected stretch: the detector hears a voice late.
    let lead = TranscriptMerger.untimedLead

    @Test("words without times are laid over the chunk's speech, never over its pauses")
    func untimedWordsFollowTheSpeech() {
        let chunk = ChunkTranscript(
            start: 0, end: 10, text: "One two three. Four five six.", segments: [], words: [], speech: [1...3, 6...8])
        let sentences = TranscriptMerger().merge([chunk], chapter: 0...10)
        #expect(sentences.map(\.text) == ["One two three.", "Four five six."])
        #expect(abs(sentences[0].start - (1 - lead)) < 1e-9 && abs(sentences[0].end - 3) < 1e-9)
        #expect(abs(sentences[1].start - (6 - lead)) < 1e-9 && abs(sentences[1].end - 8) < 1e-9)
        // Without measured speech, the words spread over the whole chunk.
        let unmeasured = TranscriptMerger().merge([ChunkTranscript(start: 0, end: 10, text: "One two.", segments: [], words: [])], chapter: 0...10)
        #expect(unmeasured.first?.start == 0 && unmeasured.first?.end == 10)
    }

    @Test("sentences without times start where their speech starts (less the detector's lead), whatever the speaker's pace")
    func untimedSentencesFindTheirPauses() {
        // A slow first sentence, a quick second, a long third, each its own stretch of speech.
        let chunk = ChunkTranscript(
            start: 0, end: 10, text: "Hello there. Yes indeed. The third sentence is rather long.", segments: [], words: [],
            speech: [0...4, 4.5...6, 6.5...10])
        let sentences = TranscriptMerger().merge([chunk], chapter: 0...10)
        #expect(sentences.map(\.text) == ["Hello there.", "Yes indeed.", "The third sentence is rather long."])
        #expect(zip(sentences.map(\.start), [0, 4.5 - lead, 6.5 - lead]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(sentences.map(\.start))")
        #expect(sentences.map(\.end) == [4, 6, 10])
        #expect(sentences.allSatisfy { $0.words.isEmpty }, "estimated word times are not stored as heard")
    }

    @Test("a segment stamped early, inside the tail of the one before, starts where its own speech starts (less the lead)")
    func earlySegmentStart() {
        // "Lane." ends at 5.26 s; Whisper starts the next segment at 5.0 s, its speech at 6.32 s.
        let chunk = ChunkTranscript(
            start: 0, end: 12, text: "", segments: [
                TimedSegment(start: 0, end: 5.0, text: "On Willow Lane."),
                TimedSegment(start: 5.0, end: 9.0, text: "She grew beans."),
            ], words: [], speech: [0.3...5.26, 6.32...8.9])
        let sentences = TranscriptMerger().merge([chunk], chapter: 0...12)
        #expect(sentences.map(\.text) == ["On Willow Lane.", "She grew beans."])
        #expect(abs(sentences[1].start - (6.32 - lead)) < 1e-9)
    }

    @Test("each sentence end is matched to the pause that gives every sentence its length of speech")
    func sentenceEndsMatchPausesByLength() {
        // Three sentences of 30, 30 and 60 letters, a pause after each of the first two.
        #expect(UntimedWordLayout.match(sentenceLetters: [30, 30, 60], over: [0...2, 2.5...4.5, 5...9]) == [0, 1])
        // A sentence end the speech does not have ("close to 12,000. Divortake hundred. He used"):
        // the one pause goes to the end whose sentences fill the speech before it.
        #expect(UntimedWordLayout.match(sentenceLetters: [30, 16, 40], over: [0...3.5, 3.9...7]) == [nil, 0])
        // The same pause after a long first sentence goes to the first end.
        #expect(UntimedWordLayout.match(sentenceLetters: [50, 16, 20], over: [0...3.5, 3.9...7]) == [0, nil])
        // Without pauses every end is inside speech.
        #expect(UntimedWordLayout.match(sentenceLetters: [10, 10], over: [0...5]) == [nil])
    }

    @Test("untimed sides that share no words in their overlap each keep the words on their side of its middle")
    func untimedWithoutAgreement() {
        let a = ChunkTranscript(start: 0, end: 10.75, text: "the storm broke", segments: [], words: [])
        let b = ChunkTranscript(start: 9.25, end: 20, text: "windows of the tower", segments: [], words: [])
        let merged = TranscriptMerger().mergedWords([a, b], chapter: 0...20).map(\.word)
        #expect(merged == ["the", "storm", "broke", "windows", "of", "the", "tower"])
    }
}

@Suite("Merged sentences and non-speech")
struct MergedSentenceNonSpeechTests {
    @Test("a sentence is cut where more than 2 s of non-speech lies between its words, however few words it has")
    func cutAtLongNonSpeech() {
        let words = [
            TimedWord(word: "After", start: 10, end: 10.3), TimedWord(word: "the", start: 10.3, end: 10.4),
            TimedWord(word: "music", start: 13.1, end: 13.5), TimedWord(word: "we", start: 13.6, end: 13.7),
            TimedWord(word: "walked.", start: 13.7, end: 14.0),
        ]
        let speech = [9.9...10.5, 13.0...14.2]
        let sentences = TranscriptMerger().sentences(words, endingAtPauses: false, speech: speech)
        #expect(sentences.map(\.text) == ["After the", "music we walked."])
        // The same gap over speech (a slow speaker) does not cut.
        let spoken = TranscriptMerger().sentences(words, endingAtPauses: false, speech: [9.9...14.2])
        #expect(spoken.count == 1)
    }
}
