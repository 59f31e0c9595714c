/// The answer's words with the times an aligner heard them at.
///
/// The aligner hears the text's spoken words in order and may skip some (a word the backend
/// wrote but nobody said, a name it cannot pronounce): what it heard is a subsequence of
/// `AlignmentText.units` (a number with several readings heard as one), matched here unit by
/// unit in order. A written word takes the
/// time of its spoken words; one the aligner skipped is laid between the heard words around
/// it and marked `estimated`.
public enum AlignedWords {
    /// The least share of the spoken words the aligner must hear for its times to be used.
    /// Below it the text and the audio disagree too much (an answer in another language than
    /// the model's phones, a hallucination), and the caller places the text as before.
    public static let leastHeardShare = 0.5
    /// Letters (and word gaps) a slow reader says per second: how long a run the aligner did
    /// not hear at either end of the text is taken to last.
    static let slowestLettersPerSecond = 10.0

    /// The answer's words on the media's clock, or nil when the aligner heard too little of
    /// them. `heard` holds the aligner's words (the spoken forms) on the media's clock, and
    /// `span` is the audio it read.
    public static func timed(_ text: AlignmentText, heard: [TimedWord], within span: ClosedRange<Double>) -> [TimedWord]? {
        let spoken = text.tokens.enumerated().flatMap { index, token in token.units.map { (token: index, word: $0.name) } }
        guard !spoken.isEmpty else { return nil }
        var times: [ClosedRange<Double>?] = Array(repeating: nil, count: text.tokens.count)
        var next = 0
        var matched = 0
        for word in heard {
            guard let at = spoken[next...].firstIndex(where: { $0.word == word.word }) else { continue }
            let token = spoken[at].token
            let heardSpan = word.start...max(word.start, word.end)
            times[token] = times[token].map { min($0.lowerBound, heardSpan.lowerBound)...max($0.upperBound, heardSpan.upperBound) } ?? heardSpan
            matched += 1
            next = at + 1
            if next == spoken.count { break }
        }
        guard Double(matched) >= leastHeardShare * Double(spoken.count) else { return nil }

        var words: [TimedWord] = []
        var index = 0
        while index < text.tokens.count {
            if let time = times[index] {
                words.append(TimedWord(word: text.tokens[index].text, start: time.lowerBound, end: time.upperBound))
                index += 1
                continue
            }
            // A run of words the aligner did not hear, between the heard words around it.
            let end = times[index...].firstIndex { $0 != nil } ?? text.tokens.count
            let run = text.tokens[index..<end].map(\.text)
            // At the text's ends the run is said next to the heard words, not spread over the
            // silence or music that may fill the rest of the span.
            let length = Double(run.reduce(0) { $0 + SpokenLength.letters($1) + 1 }) / slowestLettersPerSecond
            var from = words.last?.end ?? span.lowerBound
            var to = end < text.tokens.count ? times[end]!.lowerBound : span.upperBound
            if words.isEmpty { from = max(from, to - length) }
            if end == text.tokens.count {
                to = min(to, from + length)
            } else if !words.isEmpty, to - from > length {
                // Between heard words, a gap longer than the run holds a pause too. Where the
                // text breaks says on which side: a run that starts a sentence or clause ("...
                // rest. 9,000 loaves") is said just before the next heard word, one that ends
                // one just after the last. Spread over the pause, a sentence's first word started
                // where the last sentence ended.
                if Self.endsClause(text.tokens[index - 1].text) {
                    from = to - length
                } else if Self.endsClause(text.tokens[end - 1].text) {
                    to = from + length
                }
            }
            words += UntimedWordLayout.proportional(run, over: [min(from, to)...max(from, to)])
            index = end
        }
        return words
    }

    /// Whether a written word ends a sentence or clause: its last mark before any closing
    /// quote or bracket is one of . , ; : ! ? or an ellipsis.
    static func endsClause(_ written: String) -> Bool {
        guard let mark = written.last(where: { !"\"'\u{201D}\u{2019})]".contains($0) }) else { return false }
        return ".,;:!?\u{2026}".contains(mark)
    }
}
