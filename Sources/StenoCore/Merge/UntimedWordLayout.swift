import Foundation
/// Places words that came without times (a backend that answers text only) on the speech the
/// planner measured, so that sentence times follow the speech.
///
/// Speakers pause between sentences, and say each sentence at about the same pace. So each
/// sentence end (`.`, `?`, `!`, `;`, `:`) is matched to one of the pauses between speech
/// regions, in order, such that every sentence's share of the speech fits its length as spoken
/// (`SpokenLength`) at the chunk's own pace: a dynamic programme over sentence ends and pauses.
/// An end may stay unmatched (a quick reader does not stop), and a pause may fall inside a
/// sentence (a breath at a comma), each at a cost; a long pause inside a sentence costs more.
/// Judging each sentence by its own length, not by where an even spread of the whole chunk
/// would put its end, keeps one misheard or oddly long sentence from moving the ones after it.
/// The words of each sentence are then laid over its speech in proportion to their letters.
enum UntimedWordLayout {
    /// How far a sentence's speech may stray from its expected length: the misfit is the
    /// squared log of heard over expected, over twice this spread squared (a sentence said 40 %
    /// slower than expected costs 1), with `shortestStretch` added to both so that the shortest
    /// sentences are not judged on tenths of a second.
    static let spread = 0.35
    static let shortestStretch = 0.3
    /// The cost of a sentence end with no pause.
    static let unmatchedEnd = 2.0
    /// What a pause inside a sentence costs per second, up to `longestPauseCost`.
    static let pauseInsideSentencePerSecond = 5.0
    static let longestPauseCost = 6.0
    /// Bounds on one sentence group, so that the programme stays linear in the chunk's length:
    /// at most this many sentences run together, across at most this many pauses.
    /// Past them the words are spread evenly over the whole chunk.
    static let maximumSentencesTogether = 24
    static let maximumPausesInside = 80

    static func lay(_ texts: [String], over spans: [ClosedRange<Double>]) -> [TimedWord] {
        guard !texts.isEmpty, !spans.isEmpty else { return [] }
        let ends = texts.indices.dropLast().filter { index in texts[index].last.map { ".?!;:".contains($0) } ?? false }
        guard !ends.isEmpty, spans.count > 1 else { return proportional(texts, over: spans) }
        var letters: [Double] = []
        var first = 0
        for last in ends + [texts.count - 1] {
            letters.append(texts[first...last].reduce(0) { $0 + weight($1) })
            first = last + 1
        }
        let matches = match(sentenceLetters: letters, over: spans)

        var words: [TimedWord] = []
        var firstWord = 0
        var firstSpan = 0
        for (end, pause) in zip(ends, matches) {
            guard let pause else { continue }
            // Words firstWord...end over spans firstSpan...pause (the pause follows span `pause`).
            words += proportional(Array(texts[firstWord...end]), over: Array(spans[firstSpan...pause]))
            firstWord = end + 1
            firstSpan = pause + 1
        }
        words += proportional(Array(texts[firstWord...]), over: Array(spans[min(firstSpan, spans.count - 1)...]))
        return words
    }

    /// For each sentence end (between `sentenceLetters[i]` and `[i + 1]`), the pause it is
    /// matched to (pause `j` follows span `j`), in increasing order, or nil when it falls inside
    /// speech.
    static func match(sentenceLetters letters: [Double], over spans: [ClosedRange<Double>]) -> [Int?] {
        let sentences = letters.count
        let pauses = spans.count - 1
        guard sentences > 1, pauses > 0 else { return [Int?](repeating: nil, count: max(0, sentences - 1)) }
        // Boundaries: 0 is the chunk's start, b in 1...pauses is pause b - 1, pauses + 1 its end.
        // speechBefore[b]: seconds of speech before boundary b; lettersBefore[c]: letters of
        // the first c sentences; insideCost[b]: the cost of pauses before boundary b if unused.
        var speechBefore = [0.0]
        for span in spans { speechBefore.append(speechBefore.last! + (span.upperBound - span.lowerBound)) }
        var lettersBefore = [0.0]
        for count in letters { lettersBefore.append(lettersBefore.last! + count) }
        var insideCost = [0.0, 0.0]
        for pause in 0..<pauses {
            let length = spans[pause + 1].lowerBound - spans[pause].upperBound
            insideCost.append(insideCost.last! + min(longestPauseCost, pauseInsideSentencePerSecond * length))
        }
        let pace = speechBefore[pauses + 1] / max(lettersBefore[sentences], 1)

        // cost[c][b]: the best cost of the first c sentences ending at boundary b.
        var cost = [[Double]](repeating: [Double](repeating: .infinity, count: pauses + 2), count: sentences + 1)
        var from = [[(Int, Int)]](repeating: [(Int, Int)](repeating: (0, 0), count: pauses + 2), count: sentences + 1)
        cost[0][0] = 0
        for c in 1...sentences {
            let boundaries = c == sentences ? (pauses + 1)...(pauses + 1) : 1...pauses
            for b in boundaries {
                for earlier in max(0, c - maximumSentencesTogether)..<c {
                    let lowest = earlier == 0 ? 0 : max(1, b - 1 - maximumPausesInside)
                    let highest = earlier == 0 ? 0 : b - 1
                    guard lowest <= highest, b - highest <= maximumPausesInside + 1 else { continue }
                    for start in lowest...highest where cost[earlier][start] < .infinity {
                        let expected = (lettersBefore[c] - lettersBefore[earlier]) * pace
                        let heard = speechBefore[b] - speechBefore[start]
                        let ratio = log((heard + shortestStretch) / (expected + shortestStretch))
                        let misfit = ratio * ratio / (2 * spread * spread)
                        let total = cost[earlier][start] + misfit + Double(c - earlier - 1) * unmatchedEnd
                            + insideCost[b] - insideCost[start + 1]
                        if total < cost[c][b] {
                            cost[c][b] = total
                            from[c][b] = (earlier, start)
                        }
                    }
                }
            }
        }
        var matches = [Int?](repeating: nil, count: sentences - 1)
        var c = sentences
        var b = pauses + 1
        guard cost[c][b] < .infinity else { return matches }
        while c > 0 {
            let (earlier, start) = from[c][b]
            if earlier > 0 { matches[earlier - 1] = start - 1 }
            (c, b) = (earlier, start)
        }
        return matches
    }

    /// A word's share of the speech: its letters as spoken (`SpokenLength`: numbers spelt out),
    /// plus one for the gap a short word still takes. Sentences are matched to pauses and words
    /// laid within them by this one measure.
    static func weight(_ word: String) -> Double {
        Double(SpokenLength.letters(word) + 1)
    }

    /// Lays words end to end over `spans`, each taking a share of their total length in
    /// proportion to its `weight`;
    /// a word that reaches the end of a span goes on in the next.
    static func proportional(_ texts: [String], over spans: [ClosedRange<Double>]) -> [TimedWord] {
        let weights = texts.map(weight)
        let total = weights.reduce(0, +)
        let length = spans.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
        // The point `elapsed` seconds of speech into the spans.
        func time(at elapsed: Double) -> Double {
            var remaining = elapsed
            for span in spans {
                let duration = span.upperBound - span.lowerBound
                // At a span's end a word starts in the next span; the end of the last word falls through.
                if remaining < duration { return span.lowerBound + remaining }
                remaining -= duration
            }
            return spans.last?.upperBound ?? 0
        }
        var words: [TimedWord] = []
        var before = 0.0
        for (text, weight) in zip(texts, weights) {
            let start = time(at: length * before / total)
            before += weight
            // A word's end stays in the span it started in, so that it never covers a pause.
            let span = spans.first { start >= $0.lowerBound && start < $0.upperBound } ?? spans.last
            let end = min(time(at: length * before / total), span.map { max(start, $0.upperBound) } ?? start)
            words.append(TimedWord(word: text, start: start, end: end, estimated: true))
        }
        return words
    }
}
