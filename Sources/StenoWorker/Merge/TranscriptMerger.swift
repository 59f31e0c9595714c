/// Joins the transcripts of a chapter's chunks into one list of sentences on the media's clock.
///
/// Neighbouring chunks share an overlap, so the words spoken in it come back twice. With word
/// times on both sides, each side keeps the words whose middle falls on its side of the middle
/// of the overlap (the planner's cut point). Without them, the repeated words are found by text:
/// the longest run that ends the left side and starts the right side is dropped from the right.
/// Chunks that came back empty are skipped, and their neighbours keep all their words, since
/// nothing else heard the overlap.
public struct TranscriptMerger: Sendable {
    /// A sentence ends at `.`, `?` or `!`; backends without punctuation also end one at a pause
    /// this long, or after this many words, so that rows stay short enough to read and seek.
    public var sentencePause: Double
    public var longestSentenceWords: Int
    /// The longest run of words compared when aligning by text.
    public var longestTextOverlap: Int

    public init(sentencePause: Double = 0.6, longestSentenceWords: Int = 30, longestTextOverlap: Int = 24) {
        self.sentencePause = sentencePause
        self.longestSentenceWords = longestSentenceWords
        self.longestTextOverlap = longestTextOverlap
    }

    /// The sentences of a chapter spanning `chapter` (seconds on the media's clock).
    public func merge(_ chunks: [ChunkTranscript], chapter: ClosedRange<Double>) -> [MergedSentence] {
        let words = mergedWords(chunks, chapter: chapter)
        return sentences(words)
    }

    /// Every word of the chapter once, in order, with times inside the chapter.
    public func mergedWords(_ chunks: [ChunkTranscript], chapter: ClosedRange<Double>) -> [TimedWord] {
        let pieces = chunks.sorted { $0.start < $1.start }
            .map { (chunk: $0, tokens: Self.tokens(of: $0)) }
            .filter { !$0.tokens.words.isEmpty }
        var merged: [TimedWord] = []
        for (position, piece) in pieces.enumerated() {
            var words = piece.tokens.words
            if position + 1 < pieces.count {
                let next = pieces[position + 1]
                if let cut = Self.timeCut(piece.chunk, piece.tokens.timed, next.chunk, next.tokens.timed) {
                    words = words.filter { $0.middle < cut }
                }
            }
            if position > 0 {
                let previous = pieces[position - 1]
                if let cut = Self.timeCut(previous.chunk, previous.tokens.timed, piece.chunk, piece.tokens.timed) {
                    words = words.filter { $0.middle >= cut }
                } else if previous.chunk.end > piece.chunk.start {
                    words.removeFirst(repeatedRun(ending: merged, starting: words))
                }
            }
            merged += words
        }
        return Self.placed(merged, inside: chapter)
    }

    /// Splits words into sentences at final punctuation, at long pauses and at a length limit.
    public func sentences(_ words: [TimedWord]) -> [MergedSentence] {
        var sentences: [MergedSentence] = []
        var current: [TimedWord] = []
        func close() {
            guard let first = current.first, let last = current.last else { return }
            sentences.append(MergedSentence(
                start: first.start, end: last.end, text: current.map(\.word).joined(separator: " "), words: current))
            current = []
        }
        for (index, word) in words.enumerated() {
            current.append(word)
            let endsSentence = word.word.last.map { ".?!".contains($0) } ?? false
            let pauseFollows = index + 1 < words.count && words[index + 1].start - word.end >= sentencePause
            if endsSentence || current.count >= longestSentenceWords || (pauseFollows && current.count >= 3) {
                close()
            }
        }
        close()
        return sentences
    }

    /// The middle of the overlap of two neighbouring chunks, when both have word times.
    private static func timeCut(_ left: ChunkTranscript, _ leftTimed: Bool, _ right: ChunkTranscript, _ rightTimed: Bool) -> Double? {
        guard leftTimed, rightTimed, left.end > right.start else { return nil }
        return (left.end + right.start) / 2
    }

    /// How many words at the start of `next` repeat the end of `merged`.
    private func repeatedRun(ending merged: [TimedWord], starting next: [TimedWord]) -> Int {
        let left = merged.suffix(longestTextOverlap).map { Self.normalized($0.word) }
        let right = next.prefix(longestTextOverlap).map { Self.normalized($0.word) }
        for length in stride(from: min(left.count, right.count), through: 1, by: -1) {
            guard Array(left.suffix(length)) == Array(right.prefix(length)) else { continue }
            // One short word alike on both sides is as likely chance ("the ... the") as overlap.
            if length == 1 && left.last.map({ $0.count < 4 }) ?? true { return 0 }
            return length
        }
        return 0
    }

    /// The words of a chunk: the backend's word times, else words spread evenly over their
    /// segment (or over the chunk), marked untimed so that the merge aligns them by text.
    private static func tokens(of chunk: ChunkTranscript) -> (words: [TimedWord], timed: Bool) {
        let words = chunk.words.filter { !normalized($0.word).isEmpty }
        if !words.isEmpty { return (words, true) }
        let segments = chunk.segments.isEmpty
            ? [TimedSegment(start: chunk.start, end: chunk.end, text: chunk.text)]
            : chunk.segments
        var spread: [TimedWord] = []
        for segment in segments {
            let texts = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard !texts.isEmpty else { continue }
            let step = max(0, segment.end - segment.start) / Double(texts.count)
            for (index, text) in texts.enumerated() {
                let start = segment.start + step * Double(index)
                spread.append(TimedWord(word: text, start: start, end: start + step))
            }
        }
        return (spread, false)
    }

    /// Clamps times into the chapter and keeps them from running backwards.
    private static func placed(_ words: [TimedWord], inside chapter: ClosedRange<Double>) -> [TimedWord] {
        var placed: [TimedWord] = []
        placed.reserveCapacity(words.count)
        var earliest = chapter.lowerBound
        for var word in words {
            word.start = min(max(word.start, earliest), chapter.upperBound)
            word.end = min(max(word.end, word.start), chapter.upperBound)
            earliest = word.start
            placed.append(word)
        }
        return placed
    }

    /// Lowercased letters and digits: what two renderings of the same spoken word share.
    static func normalized(_ word: String) -> String {
        String(word.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
