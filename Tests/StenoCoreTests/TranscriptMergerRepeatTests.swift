import Foundation
import Testing

@testable import StenoCore

/// Texts that say a word or a phrase again near a cut: the overlap must be aligned on the copy
/// both sides heard, never on the one said earlier, whether the backend answered with word times
/// or with text alone.
@Suite("Transcript merge: words said twice near a cut")
struct TranscriptMergerRepeatTests {
    /// The one-shot reading: a word every 0.4 s from 40 s on.
    static let reading = "the Kingsford Gazette. Farmers from Ashby March began taking their grain to Kingsford instead of the market at Dunmore."
    static let phrase = "at the end of the day the ferry left and at the end of the day the lights went out over the water."

    static func spoken(_ text: String, from start: Double = 40, step: Double = 0.4) -> [TimedWord] {
        text.split(separator: " ").enumerated().map { index, word in
            TimedWord(word: String(word), start: start + Double(index) * step, end: start + Double(index) * step + step * 0.85)
        }
    }

    /// Two chunks cut from one reading: the left hears up to `leftEnd`, the right from `rightStart`;
    /// each keeps the words it heard whole, plus the edge word the other side heard cut off
    /// (`cutWord`, as the side heard it). Timed: with the words' times; untimed: text only,
    /// with the speech the detector found.
    static func chunks(
        _ reading: [TimedWord], leftEnd: Double, rightStart: Double, leftCutWord: String? = nil, timed: Bool
    ) -> [ChunkTranscript] {
        var left = reading.filter { $0.end <= leftEnd }
        if let leftCutWord, let cut = reading.first(where: { $0.start < leftEnd && $0.end > leftEnd }) {
            left.append(TimedWord(word: leftCutWord, start: cut.start, end: leftEnd))
        }
        let right = reading.filter { $0.start >= rightStart }
        func chunk(_ words: [TimedWord], _ range: ClosedRange<Double>) -> ChunkTranscript {
            let speech = [max(range.lowerBound, words.first!.start)...min(range.upperBound, words.last!.end)]
            return timed
                ? ChunkTranscript(start: range.lowerBound, end: range.upperBound, text: "", segments: [], words: words, speech: speech)
                : ChunkTranscript(
                    start: range.lowerBound, end: range.upperBound, text: words.map(\.word).joined(separator: " "),
                    segments: [], words: [], speech: speech)
        }
        let firstStart = reading.first!.start - 10
        let lastEnd = reading.last!.end + 10
        return [chunk(left, firstStart...leftEnd), chunk(right, rightStart...lastEnd)]
    }

    static func merged(_ chunks: [ChunkTranscript]) -> String {
        TranscriptMerger().mergedWords(chunks, chapter: 0...200).map(\.word).joined(separator: " ")
    }

    @Test("a word said twice ten words apart is aligned on the copy in the overlap", arguments: [true, false])
    func repeatedNameAtTheCut(timed: Bool) {
        let reading = Self.spoken(Self.reading)
        // "Kingsford" is said at 40.4 s and at 44.8 s; the overlap is 44.4...45.9 s. The left side
        // heard the second "Kingsford" cut off.
        let chunks = Self.chunks(reading, leftEnd: 45.9, rightStart: 44.4, leftCutWord: nil, timed: timed)
        #expect(Self.merged(chunks) == Self.reading, "timed: \(timed)")
        let cutOff = Self.chunks(reading, leftEnd: 45.0, rightStart: 44.8, leftCutWord: "Kings", timed: timed)
        let words = Self.merged(cutOff)
        #expect(words.hasSuffix("grain to Kingsford instead of the market at Dunmore."), "timed: \(timed): \(words)")
        #expect(words.hasPrefix("the Kingsford Gazette. Farmers from Ashby March began taking their grain to"), "timed: \(timed): \(words)")
        #expect(!words.contains("Kings "), "timed: \(timed): \(words)")
    }

    @Test("a phrase said twice near a cut is written once each time", arguments: [true, false])
    func repeatedPhraseAtTheCut(timed: Bool) {
        let reading = Self.spoken(Self.phrase)
        // "at the end of the day" at 40.0 s and at 43.6 s; cuts in and around the second copy.
        for (leftEnd, rightStart) in [(44.5, 43.0), (45.2, 43.8), (46.0, 44.6), (47.5, 46.0)] {
            let chunks = Self.chunks(reading, leftEnd: leftEnd, rightStart: rightStart, timed: timed)
            #expect(Self.merged(chunks) == Self.phrase, "timed: \(timed), overlap \(rightStart)...\(leftEnd)")
        }
    }

    @Test("one long word alike on both sides is not enough to align on: the overlap is cut at its middle")
    func oneWordIsNotAnAlignment() {
        // The left side heard "Kingsford" at 40.4 s only, the right side the second one at 44.8 s,
        // and nothing else alike: aligning on it would drop ten words. Untimed, with estimated
        // times far off, only the time cut is left.
        let left = ChunkTranscript(
            start: 30, end: 45.2, text: "", segments: [], words: Self.spoken("the Kingsford Gazette. Farmers from Ashby March began taking their grain to"))
        let right = ChunkTranscript(
            start: 44.2, end: 60, text: "", segments: [], words: Self.spoken("Kingsford instead of the market.", from: 44.8))
        let words = TranscriptMerger().mergedWords([left, right], chapter: 0...100).map(\.word)
        #expect(words == "the Kingsford Gazette. Farmers from Ashby March began taking their grain to Kingsford instead of the market.".split(separator: " ").map(String.init))
    }

    @Test("text-only sides with no words alike keep their words: estimated times place no seam")
    func untimedWithoutAgreementKeepsTheWords() {
        let text = "cat dog cow pig hen fox elk owl bat rat ant bee"
        let reading = Self.spoken(text)
        // The overlap, 41.4...42.6 s, holds "hen fox elk", which the left side heard otherwise.
        var chunks = Self.chunks(reading, leftEnd: 42.6, rightStart: 41.4, timed: false)
        chunks[0].text = chunks[0].text.replacingOccurrences(of: "hen fox", with: "her fog")
        #expect(Self.merged(chunks) == "cat dog cow pig her fog hen fox elk owl bat rat ant bee")
    }

    @Test("one long word that is both sides' edge aligns them; the same word elsewhere does not")
    func edgeWordAlone() {
        // "...for 20 minutes. Thomas." | "Thomas Scott, a cup of tea": the overlap holds one word.
        for timed in [true, false] {
            let reading = Self.spoken("the train stopped for twenty minutes. Thomas Scott, a cup of tea for three dollars.")
            let chunks = Self.chunks(reading, leftEnd: 42.8, rightStart: 42.35, timed: timed)
            #expect(Self.merged(chunks) == "the train stopped for twenty minutes. Thomas Scott, a cup of tea for three dollars.", "timed: \(timed)")
        }
    }

    @Test("the slack for estimated times is a few words' length, never under 2 s")
    func untimedSlack() {
        #expect(TranscriptMerger.untimedSlack(Self.spoken("a b c d e")) == 2.0)
        let slow = Self.spoken("a b c d e", step: 2.0)
        #expect(abs(TranscriptMerger.untimedSlack(slow) - 4 * 1.7) < 1e-9)
        #expect(TranscriptMerger.untimedSlack([TimedWord]()) == 2.0)
    }
}
