/// Places words that came without times (a backend that answers text only) on the speech the
/// planner measured, so that sentence times follow the speech.
///
/// Speakers pause between sentences. The words are first laid end to end over the speech in
/// proportion to their letters; then each sentence end (`.`, `?`, `!`, `;`, `:`) is matched to
/// one of the pauses between speech regions, in order, by the least total distance from where
/// the proportional layout put it (a dynamic programme over ends and pauses; an end may stay
/// unmatched, and a pause may hold none, at a cost that grows with its length: a long pause is
/// most likely a sentence's end). The words between two matched pauses are laid again
/// over the speech between them. A sentence so starts where its speech starts, not where an
/// even spread would put it.
enum UntimedWordLayout {
    /// How far from its proportional place a sentence end may be moved to a pause.
    static let reach = 3.0
    /// The cost of leaving a sentence end where it fell (seconds of distance it counts as): any
    /// pause within reach is worth taking, unless the order of the others needs it.
    static let unmatched = reach
    /// What leaving a pause without a sentence end costs, per second of pause.
    static let unusedPausePerSecond = 3.0

    static func lay(_ texts: [String], over spans: [ClosedRange<Double>]) -> [TimedWord] {
        guard !texts.isEmpty, !spans.isEmpty else { return [] }
        let estimate = proportional(texts, over: spans)
        let ends = texts.indices.dropLast().filter { index in texts[index].last.map { ".?!;:".contains($0) } ?? false }
        let pauses = zip(spans, spans.dropFirst()).map { (after: $0.0.upperBound, before: $0.1.lowerBound) }
        guard !ends.isEmpty, !pauses.isEmpty else { return estimate }
        let matches = match(ends: ends.map { estimate[$0].end }, pauses: pauses.map { $0.after...$0.before })

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

    /// For each sentence end (its estimated time, in order), the pause it is matched to, in
    /// increasing order, or nil. An end that falls inside a pause is at distance 0 from it.
    static func match(ends: [Double], pauses: [ClosedRange<Double>]) -> [Int?] {
        let infinity = Double.infinity
        // cost[i][j]: the best cost of the first i ends using only the first j pauses.
        var cost = [[Double]](repeating: [Double](repeating: infinity, count: pauses.count + 1), count: ends.count + 1)
        var choice = [[Int]](repeating: [Int](repeating: 0, count: pauses.count + 1), count: ends.count + 1)
        cost[0][0] = 0
        for j in stride(from: 1, through: pauses.count, by: 1) { cost[0][j] = cost[0][j - 1] + unusedCost(pauses[j - 1]) }
        for i in 1...ends.count {
            for j in 0...pauses.count {
                // 0: end i unmatched; 1: pause j unused; 2: end i matched to pause j.
                var best = cost[i - 1][j] + unmatched
                var how = 0
                if j > 0 {
                    let pause = pauses[j - 1]
                    let unused = cost[i][j - 1] + unusedCost(pause)
                    if unused < best {
                        best = unused
                        how = 1
                    }
                    let distance = max(0, pause.lowerBound - ends[i - 1], ends[i - 1] - pause.upperBound)
                    if distance <= reach, cost[i - 1][j - 1] + distance < best {
                        best = cost[i - 1][j - 1] + distance
                        how = 2
                    }
                }
                cost[i][j] = best
                choice[i][j] = how
            }
        }
        var matches = [Int?](repeating: nil, count: ends.count)
        var i = ends.count
        var j = pauses.count
        while i > 0 {
            switch choice[i][j] {
            case 1: j -= 1
            case 2:
                matches[i - 1] = j - 1
                i -= 1
                j -= 1
            default: i -= 1
            }
        }
        return matches
    }

    static func unusedCost(_ pause: ClosedRange<Double>) -> Double {
        min(reach, unusedPausePerSecond * (pause.upperBound - pause.lowerBound))
    }

    /// Lays words end to end over `spans`, each taking a share of their total length in
    /// proportion to its letters and digits (plus one, for the gap a short word still takes);
    /// a word that reaches the end of a span goes on in the next.
    static func proportional(_ texts: [String], over spans: [ClosedRange<Double>]) -> [TimedWord] {
        let weights = texts.map { Double(TranscriptMerger.normalized($0).count + 1) }
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
