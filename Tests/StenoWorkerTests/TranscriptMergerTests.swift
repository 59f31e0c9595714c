import Testing

@testable import StenoWorker

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
}
