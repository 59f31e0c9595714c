import Testing

@testable import StenoCore

@Suite("Speech left without words")
struct SpeechCoverageTests {
    let coverage = SpeechCoverage()

    /// Words every 0.4 s from `start`, each 0.34 s long.
    static func spoken(_ text: String, from start: Double) -> [TimedWord] {
        text.split(separator: " ").enumerated().map { index, word in
            TimedWord(word: String(word), start: start + Double(index) * 0.4, end: start + Double(index) * 0.4 + 0.34)
        }
    }

    static let sentence = "Every spring the boats fill with bird watchers hoping to see the puffins nesting on the northern cliffs."

    /// A chunk that ends 0.4 s after its last sentence, whose answer lost the last six words.
    static func truncated() -> (answer: SpeechCoverage.Answer, speech: [ClosedRange<Double>], chunk: ClosedRange<Double>) {
        let all = spoken(sentence, from: 42)  // 18 words: 42.0 ... 49.14 s
        let kept = Array(all.prefix(12))      // up to "the" (46.74 s)
        let answer = SpeechCoverage.Answer(
            text: kept.map(\.word).joined(separator: " "),
            segments: [TimedSegment(start: 42, end: kept.last!.end, text: kept.map(\.word).joined(separator: " "))], words: kept)
        return (answer, [31.0...40.5, 41.9...49.1], 30...49.5)
    }

    @Test("speech after the last word, before the chunk's end, is one span to ask again")
    func truncatedAnswer() {
        let (answer, speech, chunk) = Self.truncated()
        // The first stretch of speech (31...40.5 s) has no words either: both are asked.
        let spans = coverage.uncovered(answer, speech: speech, chunk: chunk)
        #expect(spans.count == 2)
        #expect(abs(spans[1].lowerBound - (46.74 + coverage.wordReach)) < 1e-9 && spans[1].upperBound == 49.1, "\(spans)")
        // With the first stretch answered, only the lost end is left.
        var answered = answer
        answered.words = (0..<10).map { TimedWord(word: "w\($0)", start: 31.2 + Double($0) * 0.9, end: 32.0 + Double($0) * 0.9) } + answer.words
        #expect(coverage.uncovered(answered, speech: speech, chunk: chunk) == [(46.74 + coverage.wordReach)...49.1])
    }

    @Test("a last word stretched to the chunk's end, or stamped there with no length, does not cover the speech it was stretched over",
        arguments: [(46.74, 49.98), (49.98, 49.98), (46.74, 49.7)])
    func stretchedLastWord(start: Double, end: Double) {
        // As Whisper tiny.en answered a chunk cut 0.5 s after "...the northern cliffs.": the
        // answer stops at "the", whose times run to the chunk's end (or sit at it), over the speech
        // of the six words it never decoded.
        let all = Self.spoken(Self.sentence, from: 42)
        var kept = Array(all.prefix(12))
        kept[11].start = start
        kept[11].end = end
        let answer = SpeechCoverage.Answer(text: kept.map(\.word).joined(separator: " "), segments: [], words: kept)
        let chunk = 42.0...50.0
        let spans = coverage.uncovered(answer, speech: [41.9...49.5], chunk: chunk)
        #expect(spans.count == 1, "\(spans)")
        if let span = spans.first {
            #expect(span.upperBound == 49.5 && span.lowerBound <= 47.9, "\(span)")
        }
        // Without words, a last segment stretched to the end covers what its text takes to say.
        let segment = SpeechCoverage.Answer(
            text: answer.text, segments: [TimedSegment(start: 42, end: end, text: answer.text)], words: [])
        let segmentSpans = coverage.uncovered(segment, speech: [41.9...49.5], chunk: chunk)
        #expect(segmentSpans.count == 1 && segmentSpans.first?.upperBound == 49.5, "\(segmentSpans)")
    }

    @Test("a whole answer whose last word ends near the chunk's end leaves nothing to ask")
    func lastWordNearTheEnd() {
        // 18 words to 49.14 s in a chunk that ends at 49.4: the last word is trusted for its own length.
        let words = Self.spoken(Self.sentence, from: 42)
        let answer = SpeechCoverage.Answer(text: Self.sentence, segments: [TimedSegment(start: 42, end: 49.14, text: Self.sentence)], words: words)
        #expect(coverage.uncovered(answer, speech: [41.9...49.2], chunk: 30...49.4).isEmpty)
        #expect(coverage.uncovered(SpeechCoverage.Answer(text: Self.sentence, segments: answer.segments, words: []), speech: [41.9...49.2], chunk: 30...49.4).isEmpty)
    }

    @Test("an answer whose words cover its speech leaves nothing to ask")
    func wholeAnswer() {
        let words = Self.spoken(Self.sentence, from: 42)
        let answer = SpeechCoverage.Answer(text: Self.sentence, segments: [], words: words)
        #expect(coverage.uncovered(answer, speech: [41.8...48.9], chunk: 40...50).isEmpty)
        // Under a second uncovered (one word lost) is not worth a request.
        let lostOne = SpeechCoverage.Answer(text: "", segments: [], words: Array(words.dropLast()))
        #expect(coverage.uncovered(lostOne, speech: [41.8...48.9], chunk: 40...50).isEmpty)
    }

    @Test("speech running into the chunk's edge is the neighbour's for the overlap's length")
    func sharedEdge() {
        let words = Self.spoken("one two three four five", from: 10)  // up to 11.94 s
        let answer = SpeechCoverage.Answer(text: "", segments: [], words: words)
        // Speech to the chunk's end at 13.5 s: 12.24...13.5 less the 1.5 s shared edge is nothing.
        #expect(coverage.uncovered(answer, speech: [9.9...13.5], chunk: 0...13.5).isEmpty)
        // Speech to the end at 16 s: 12.24...14.5 is this chunk's own.
        let spans = coverage.uncovered(answer, speech: [9.9...16], chunk: 0...16)
        #expect(spans.count == 1 && abs(spans[0].lowerBound - 12.24) < 1e-9 && spans[0].upperBound == 14.5, "\(spans)")
    }

    @Test("segment times and text alone are compared with the speech too")
    func segmentsAndText() {
        let segments = SpeechCoverage.Answer(
            text: "a", segments: [TimedSegment(start: 10, end: 14, text: "Some words here.")], words: [])
        #expect(coverage.uncovered(segments, speech: [10...17], chunk: 5...20) == [14.5...17])
        // 50 letters take at least 5 s to read: of 12 s of speech, the last 7 s are left.
        let text = SpeechCoverage.Answer(text: String(repeating: "abcde ", count: 10), segments: [], words: [])
        #expect(coverage.uncovered(text, speech: [1...7, 8...14], chunk: 0...20) == [6...14])
        #expect(coverage.uncovered(SpeechCoverage.Answer(text: String(repeating: "abcde ", count: 30), segments: [], words: []),
                                   speech: [1...7, 8...14], chunk: 0...20).isEmpty)
    }

    @Test("at most three spans per chunk, the longest, in time order")
    func bounded() {
        let speech: [ClosedRange<Double>] = [1...2.5, 5...9, 12...13.2, 16...18, 21...22.1]
        let spans = coverage.uncovered(SpeechCoverage.Answer(text: "", segments: [], words: []), speech: speech, chunk: 0...25)
        #expect(spans == [1...2.5, 5...9, 16...18])
    }

    @Test("several words stretched over the lost speech at the chunk's end are each cut to what they take to say")
    func severalStretchedWords() {
        // As tiny.en answered T3 cut 0.48 s after the sentence: "to" 16.90-19.14, "see"
        // 19.14-19.98, "the" at 19.98 in a 20 s chunk whose speech ends at 19.52.
        var words = Self.spoken("We had read every book we could find all because we were hoping", from: 11.71)
        words += [TimedWord(word: "to", start: 16.90, end: 19.14), TimedWord(word: "see", start: 19.14, end: 19.98), TimedWord(word: "the", start: 19.98, end: 19.98)]
        let answer = SpeechCoverage.Answer(text: words.map(\.word).joined(separator: " "), segments: [], words: words)
        let spans = coverage.uncovered(answer, speech: [11.6...19.52], chunk: 0...20)
        #expect(spans.count == 1 && spans.first?.upperBound == 19.52 && (spans.first?.lowerBound ?? 20) < 18.2, "\(spans)")
    }

    @Test("a word of the re-ask that ends within two word reaches of the span is kept unless it repeats the text before")
    func leadMargin() {
        let (answer, speech, chunk) = Self.truncated()
        let span = (46.74 + coverage.wordReach)...49.1
        let window = coverage.window(for: span, chunk: chunk)
        // The second decode stamps "puffins" to end right at the last kept word's end, and "the"
        // before it: "the" is the lead's (it repeats the text before), "puffins" is not.
        let recovered = [
            TimedWord(word: "the", start: 46.30, end: 46.45), TimedWord(word: "puffins", start: 46.45, end: 46.74),
            TimedWord(word: "nesting", start: 46.80, end: 47.30), TimedWord(word: "on", start: 47.3, end: 47.5), TimedWord(word: "the", start: 47.5, end: 47.6),
            TimedWord(word: "northern", start: 47.6, end: 48.1), TimedWord(word: "cliffs.", start: 48.1, end: 48.7),
        ]
        let again = SpeechCoverage.Answer(text: recovered.map(\.word).joined(separator: " "), segments: [], words: recovered)
        let (filled, added) = coverage.filling(answer, span: span, with: again, window: window, speech: speech, chunk: chunk)
        #expect(added == 6)
        #expect(filled.words.map(\.word).joined(separator: " ") == Self.sentence)
    }

    @Test("the words asked again after a stretched end go after the words it can have said, each once",
        arguments: [
            // "the" stretched to the chunk's end.
            [("to", 16.90, 17.10), ("see", 17.10, 17.30), ("the", 17.38, 19.98)],
            // "to" and "see" stretched, "the" stamped at the end with no length.
            [("to", 16.90, 19.14), ("see", 19.14, 19.98), ("the", 19.98, 19.98)],
            // "see" ends at the chunk's end without being stretched.
            [("to", 16.86, 19.56), ("see", 19.56, 19.98), ("the", 19.98, 19.98)],
        ])
    func fillingAfterAStretchedEnd(tail: [(String, Double, Double)]) {
        let head = Self.spoken("all because we were hoping", from: 14.85)  // to 16.79 s
        let words = head + tail.map { TimedWord(word: $0.0, start: $0.1, end: $0.2) }
        let answer = SpeechCoverage.Answer(text: words.map(\.word).joined(separator: " "), segments: [], words: words)
        let chunk = 0.0...20.0
        let speech: [ClosedRange<Double>] = [14.8...19.52]
        let spans = coverage.uncovered(answer, speech: speech, chunk: chunk)
        try? #require(spans.count == 1, "\(spans)")
        guard let span = spans.first else { return }
        let window = coverage.window(for: span, chunk: chunk)
        // As tiny.en answered the re-ask: "the" in the lead, then the six lost words, "puffins"
        // stamped from the window's start.
        let recovered = [
            TimedWord(word: "the", start: window.lowerBound + 0.2, end: window.lowerBound + 0.45),
            TimedWord(word: "puffins", start: window.lowerBound, end: window.lowerBound + 0.9),
        ] + Self.spoken("nesting on the northern cliffs.", from: window.lowerBound + 1.0)
        let again = SpeechCoverage.Answer(text: recovered.map(\.word).joined(separator: " "), segments: [], words: recovered)
        let (filled, _) = coverage.filling(answer, span: span, with: again, window: window, speech: speech, chunk: chunk)
        #expect(filled.words.map(\.word).joined(separator: " ") == "all because we were hoping to see the puffins nesting on the northern cliffs.")
        #expect(zip(filled.words, filled.words.dropFirst()).allSatisfy { $0.start <= $1.start && $0.end <= $1.end }, "\(filled.words)")
        #expect(filled.words.allSatisfy { $0.end <= chunk.upperBound })
    }

    @Test("an answer without times, one segment over the whole chunk, is not cut at its end")
    func untimedAnswerIsNotCut() {
        let text = "Welcome to a very short episode of Two Wheels, the show about bicycles."
        let answer = SpeechCoverage.Answer(text: text, segments: [TimedSegment(start: 0, end: 6, text: text)], words: [], timed: false)
        #expect(coverage.uncovered(answer, speech: [0.3...5.9], chunk: 0...6).isEmpty)
    }

    @Test("the words asked again fill the span, without the words of the lead the backend repeated")
    func fillingTimed() {
        let (answer, speech, chunk) = Self.truncated()
        let span = (46.74 + coverage.wordReach)...49.1
        let window = coverage.window(for: span, chunk: chunk)
        #expect(abs(window.lowerBound - (span.lowerBound - 1)) < 1e-9 && abs(window.upperBound - 49.4) < 1e-9)
        // The re-ask heard "see the" in its lead again, then the lost words.
        let recovered = Self.spoken("see the puffins nesting on the northern cliffs.", from: 46.0)
        let answerAgain = SpeechCoverage.Answer(text: recovered.map(\.word).joined(separator: " "), segments: [], words: recovered)
        let (filled, added) = coverage.filling(answer, span: span, with: answerAgain, window: window, speech: speech, chunk: chunk)
        #expect(added == 6)
        #expect(filled.words.map(\.word).joined(separator: " ") == Self.sentence)
        #expect(filled.text == Self.sentence)
        #expect(filled.segments.count == 2 && filled.segments[1].text == "puffins nesting on the northern cliffs.")
        #expect(zip(filled.words, filled.words.dropFirst()).allSatisfy { $0.start <= $1.start })
    }

    @Test("words asked again without times are told apart from the lead by their text")
    func fillingUntimed() {
        let (answer, speech, chunk) = Self.truncated()
        let span = (46.74 + coverage.wordReach)...49.1
        let window = coverage.window(for: span, chunk: chunk)
        let again = SpeechCoverage.Answer(text: "to see the puffins nesting on the northern cliffs.", segments: [], words: [])
        let (filled, added) = coverage.filling(answer, span: span, with: again, window: window, speech: speech, chunk: chunk)
        #expect(added == 6)
        #expect(filled.text == Self.sentence)
        #expect(filled.words.count == 18 && filled.words.suffix(6).allSatisfy { $0.start >= span.lowerBound && $0.end <= span.upperBound })
        // An empty answer, or one that only repeats the lead, adds nothing.
        for text in ["", "hoping to see the"] {
            let (same, none) = coverage.filling(
                answer, span: span, with: SpeechCoverage.Answer(text: text, segments: [], words: []), window: window, speech: speech, chunk: chunk)
            #expect(none == 0 && same == answer, "\(text)")
        }
    }

    @Test("a text-only answer gets the recovered words at its end")
    func fillingTextOnly() {
        let answer = SpeechCoverage.Answer(text: "Every spring the boats fill with bird watchers hoping to see the", segments: [], words: [])
        let again = SpeechCoverage.Answer(text: "see the puffins nesting on the northern cliffs.", segments: [], words: [])
        let (filled, added) = coverage.filling(answer, span: 8...10, with: again, window: 7...10.3, speech: [0...10], chunk: 0...10.5)
        #expect(added == 6 && filled.text == Self.sentence)
    }

    @Test("a repeat is two words or more, or one word of four letters or more")
    func repeats() {
        #expect(SpeechCoverage.repeated(tail: ["hoping", "to", "see", "the"], head: ["see", "the", "puffins"]) == 2)
        #expect(SpeechCoverage.repeated(tail: ["over", "the"], head: ["the", "cliffs"]) == 0)
        #expect(SpeechCoverage.repeated(tail: ["the", "puffins"], head: ["Puffins,", "nesting"]) == 1)
        #expect(SpeechCoverage.repeated(tail: [], head: ["a"]) == 0)
    }

    @Test("the prompt is the media's prompt, then the words before the span")
    func prompt() {
        let (answer, speech, chunk) = Self.truncated()
        let prompt = coverage.prompt(for: 47.04...49.1, in: answer, chunk: chunk, speech: speech, mediaPrompt: "Puffins, Skomer.")
        #expect(prompt == "Puffins, Skomer. Every spring the boats fill with bird watchers hoping to see the")
        #expect(coverage.prompt(for: 30...31, in: answer, chunk: chunk, speech: speech, mediaPrompt: nil) == nil)
    }
}
