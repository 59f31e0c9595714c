/// Finds speech a backend left without words, and fits the words it gives when asked again for
/// that span alone into the chunk's answer.
///
/// Whisper's output at the end of its audio is unstable: a chunk that ends shortly after a
/// sentence, before a pause, can come back without that sentence's last words, and nothing else
/// notices (the gates look for text where there is no speech, never for speech without text).
/// Here the chunk's detected speech is compared with the words: with word times, speech more
/// than `wordReach` from every word; with segment times only, outside every segment; with text
/// alone, the speech beyond what the text takes to say at `slowestLetterRate`. A span of at least
/// `shortestSpan` seconds of such speech is asked again, with `lead` seconds of audio before it
/// and the text before it as the prompt; at most `mostSpans` per chunk, each once. A pure
/// decision: the chunk job carries it out.
public struct SpeechCoverage: Sendable, Hashable {
    /// Uncovered speech shorter than this is not asked again. Whisper's word times stray by up
    /// to about 0.3 s from the detector's speech and one short word takes about as long: a second
    /// is two or three words, not the slack of times that disagree a little.
    public var shortestSpan = 1.0
    /// How far from a word's stamped times its speech may still be its own.
    public var wordReach = 0.3
    /// Segment times are coarser than word times.
    public var segmentReach = 0.5
    /// Pieces of uncovered speech closer than this are one span, asked in one request.
    public var joinedAcross = 1.0
    /// Letters per second of the slowest reading: a text-only answer is taken to cover the
    /// speech its letters take at this rate (readers speak 12-16), so only a text well short of
    /// its speech is asked again.
    public var slowestLetterRate = 10.0
    public var mostSpans = 3
    /// Audio sent before the span, so that the backend starts inside the speech it continues.
    public var lead = 1.0
    /// Audio sent after the span, for a last word the detector heard end early.
    public var trail = 0.3
    /// Speech that runs into the chunk's edge continues in the neighbouring chunk, which hears
    /// the overlap: that much of it at such an edge is the neighbour's to answer.
    public var sharedEdge = 1.5
    /// An answer whose last word (or, without words, last segment) ends this close to the
    /// chunk's end is not trusted to have said everything its times stretch over. Whisper that
    /// ends its last segment with a lone timestamp skips to the end of its audio: the sentence's
    /// last words are never decoded, and the words before them are stretched to the chunk's end
    /// or stamped there with no length ("...hoping to see the", issue 52; 32 of 32 such answers
    /// with tiny.en on flite speech ended within 0.35 s). The run of such words (each longer
    /// than `longestWord`, or of no length) covers only what it takes to say at
    /// `usualLetterRate`, and such a segment what its letters take at that rate, so that the
    /// speech after them is asked again.
    public var untrustedEnd = 0.35
    /// Letters per second of ordinary reading, for the last segment's text.
    public var usualLetterRate = 14.0

    /// The longest one word of `letters` letters is taken to last: a drawn-out "the" is half a
    /// second, a long word 1.5 s.
    public static func longestWord(letters: Int) -> Double { 0.2 + 0.12 * Double(letters) }

    /// The pause between two words at an ordinary pace.
    static let wordGap = 0.1

    public init() {}

    /// A chunk's answer as text, segments and words on the media's clock.
    public struct Answer: Sendable, Hashable {
        public var text: String
        public var segments: [TimedSegment]
        public var words: [TimedWord]
        /// Whether the backend gave the times: an answer without them has one segment over the
        /// whole chunk, which says nothing about where its text ends.
        public var timed: Bool

        public init(text: String, segments: [TimedSegment], words: [TimedWord], timed: Bool = true) {
            self.text = text
            self.segments = segments
            self.words = words
            self.timed = timed
        }
    }

    /// The spans of `speech` the answer leaves without words, longest first at most
    /// `mostSpans` of them, in time order.
    public func uncovered(_ answer: Answer, speech: [ClosedRange<Double>], chunk: ClosedRange<Double>) -> [ClosedRange<Double>] {
        var heard = SpeechRegions.joined(SpeechRegions.clip(speech, to: chunk))
        let edge = 0.1
        if let last = heard.last, chunk.upperBound - last.upperBound < edge {
            let trimmed = last.lowerBound...max(last.lowerBound, last.upperBound - sharedEdge)
            heard[heard.count - 1] = trimmed
        }
        if let first = heard.first, first.lowerBound - chunk.lowerBound < edge {
            heard[0] = min(first.upperBound, first.lowerBound + sharedEdge)...first.upperBound
        }
        heard = heard.filter { $0.upperBound > $0.lowerBound }
        let uncovered = Self.subtracting(covered(trusted(answer, chunk: chunk), speech: heard), from: heard)
        let spans = SpeechRegions.joined(uncovered, acrossGapsUpTo: joinedAcross)
            .filter { SpeechRegions.seconds(of: uncovered, within: $0) >= shortestSpan }
        return spans.sorted { ($0.upperBound - $0.lowerBound) > ($1.upperBound - $1.lowerBound) }
            .prefix(mostSpans)
            .sorted { $0.lowerBound < $1.lowerBound }
    }

    /// The answer with its end taken at what it can have said (`untrustedEnd`): when its last
    /// word ends that close to the chunk's end, the run of words before it that are stretched
    /// past what each takes to say, have no length, or end that close too, is laid from the
    /// run's first start at an ordinary pace; the truncated ending may stretch several ("to"
    /// 16.90-19.14, "see" 19.14-19.98, "the" at 19.98), and their times say nothing. Without
    /// words, a timed last segment there is cut to what its text takes at that pace. Used for
    /// what the answer covers, for the words before a span and for where the span's words go.
    public func trusted(_ answer: Answer, chunk: ClosedRange<Double>) -> Answer {
        var answer = answer
        func nearTheEnd(_ start: Double, _ end: Double) -> Bool { chunk.upperBound - max(start, end) < untrustedEnd }
        if let last = answer.words.last {
            guard nearTheEnd(last.start, last.end) else { return answer }
            var first = answer.words.count
            while first > 0 {
                let word = answer.words[first - 1]
                let length = max(0, word.end - word.start)
                let stretched = length > Self.longestWord(letters: SpokenLength.letters(word.word))
                guard stretched || length == 0 || nearTheEnd(word.start, word.end) else { break }
                first -= 1
            }
            var at = first < answer.words.count ? answer.words[first].start : 0
            for index in first..<answer.words.count {
                let said = Double(SpokenLength.letters(answer.words[index].word)) / usualLetterRate + Self.wordGap
                let start = min(at, chunk.upperBound)
                answer.words[index].start = start
                answer.words[index].end = min(max(start, answer.words[index].end), start + said, chunk.upperBound)
                at += said
            }
            return answer
        }
        if answer.timed, let index = answer.segments.lastIndex(where: { !TranscriptMerger.normalized($0.text).isEmpty }),
            nearTheEnd(answer.segments[index].start, answer.segments[index].end)
        {
            let segment = answer.segments[index]
            let said = Double(SpokenLength.letters(segment.text)) / usualLetterRate
            answer.segments[index].end = min(max(segment.start, segment.end), segment.start + said)
        }
        return answer
    }

    /// What the answer's words, segments or text account for.
    func covered(_ answer: Answer, speech: [ClosedRange<Double>]) -> [ClosedRange<Double>] {
        if !answer.words.isEmpty {
            return SpeechRegions.joined(answer.words.map { ($0.start - wordReach)...(max($0.start, $0.end) + wordReach) })
        }
        let segments = answer.segments.filter { !TranscriptMerger.normalized($0.text).isEmpty }
        if !segments.isEmpty {
            return SpeechRegions.joined(segments.map { ($0.start - segmentReach)...(max($0.start, $0.end) + segmentReach) })
        }
        // Text alone: the first stretch of speech its letters take to say.
        var left = Double(answer.text.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }.count) / slowestLetterRate
        var covered: [ClosedRange<Double>] = []
        for region in speech where left > 0 {
            let length = min(left, region.upperBound - region.lowerBound)
            covered.append(region.lowerBound...(region.lowerBound + length))
            left -= length
        }
        return covered
    }

    /// The audio to send for `span`: `lead` before it and `trail` after it, inside the chunk.
    public func window(for span: ClosedRange<Double>, chunk: ClosedRange<Double>) -> ClosedRange<Double> {
        max(chunk.lowerBound, span.lowerBound - lead)...min(chunk.upperBound, span.upperBound + trail)
    }

    /// The prompt for `span`: the words before it (at most `promptWords`), after the media's own
    /// prompt when it has one; Whisper reads a prompt as the text that came before.
    public func prompt(
        for span: ClosedRange<Double>, in answer: Answer, chunk: ClosedRange<Double>, speech: [ClosedRange<Double>], mediaPrompt: String?
    ) -> String? {
        let before = Self.around(span, in: trusted(answer, chunk: chunk), chunk: chunk, speech: speech).before.suffix(Self.promptWords).map(\.word)
        let parts = [mediaPrompt, before.isEmpty ? nil : before.joined(separator: " ")].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    static let promptWords = 40

    /// `answer` with the words of `recovered` (the answer for `window`, on the media's clock)
    /// put in `span`'s place, and how many words that added. Words the backend repeated from
    /// the lead (the end of the text before the span), or from after the span, are left out.
    public func filling(
        _ answer: Answer, span: ClosedRange<Double>, with recovered: Answer, window: ClosedRange<Double>, speech: [ClosedRange<Double>],
        chunk: ClosedRange<Double>
    ) -> (answer: Answer, added: Int) {
        // The words before and after the span, and where its words go, by the times the
        // answer can have said its words at: its stretched end would put the span's words
        // before the word it stretched ("see the the puffins").
        let answer = trusted(answer, chunk: chunk)
        let (before, after) = Self.around(span, in: answer, chunk: chunk, speech: speech)
        var new = Self.words(of: recovered, chunk: window, speech: SpeechRegions.clip(speech, to: window))
        if !recovered.words.isEmpty {
            // Heard times: what lies in the lead was already answered. Two decodes of the same
            // speech stamp it up to `wordReach` apart, and the span starts `wordReach` after the
            // last word kept: only a word ending before both margins is surely the lead's (at
            // one margin, "puffins" was dropped in 17 of 23 re-asks by 20 ms either way). A word
            // of the lead said again inside the margin goes when it repeats the text before,
            // even a lone "the".
            new.removeAll { $0.end <= span.lowerBound - 2 * wordReach }
            let inMargin = new.prefix { $0.end <= span.lowerBound - wordReach }.count
            new.removeFirst(Self.repeated(tail: before.map(\.word), head: new.prefix(inMargin).map(\.word), shortest: 1))
        }
        new.removeFirst(Self.repeated(tail: before.map(\.word), head: new.map(\.word)))
        new.removeLast(Self.repeated(tail: new.map(\.word), head: after.map(\.word)))
        guard !new.isEmpty else { return (answer, 0) }

        var filled = answer
        let text = new.map(\.word).joined(separator: " ")
        let start = min(max(new.first!.start, span.lowerBound - wordReach), span.upperBound)
        let end = max(new.last!.end, start)
        if !answer.words.isEmpty {
            // Laid words (the re-ask answered without times) are placed over the span's speech.
            let placed = recovered.words.isEmpty
                ? UntimedWordLayout.lay(new.map(\.word), over: SpeechRegions.clip(speech, to: span).isEmpty ? [span] : SpeechRegions.clip(speech, to: span))
                    .map { TimedWord(word: $0.word, start: $0.start, end: $0.end) }
                : new
            let at = filled.words.firstIndex { $0.middle > span.upperBound } ?? filled.words.count
            // The re-ask's first word may be stamped from its window's start, before the word it
            // follows ended: times never run backwards at the join.
            var floor = at > 0 ? filled.words[at - 1].end : -Double.infinity
            let joined = placed.map { word -> TimedWord in
                var word = word
                word.start = max(word.start, floor)
                word.end = max(word.end, word.start)
                floor = word.start
                return word
            }
            filled.words.insert(contentsOf: joined, at: at)
        }
        if !answer.segments.isEmpty {
            let at = filled.segments.firstIndex { $0.start > start } ?? filled.segments.count
            filled.segments.insert(TimedSegment(start: start, end: end, text: text), at: at)
            filled.text = filled.segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
        } else if !answer.words.isEmpty {
            filled.text = filled.words.map(\.word).joined(separator: " ")
        } else {
            // Text alone is covered from the chunk's first speech on: the span is at its end.
            filled.text = [answer.text, text].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return (filled, new.count)
    }

    /// The answer's words before `span` and after it. Text alone covers the speech from the
    /// chunk's start, so all its words come before.
    static func around(
        _ span: ClosedRange<Double>, in answer: Answer, chunk: ClosedRange<Double>, speech: [ClosedRange<Double>]
    ) -> (before: [TimedWord], after: [TimedWord]) {
        let existing = words(of: answer, chunk: chunk, speech: speech)
        guard !answer.words.isEmpty || !answer.segments.isEmpty else { return (existing, []) }
        return (existing.filter { $0.middle < span.lowerBound }, existing.filter { $0.middle > span.upperBound })
    }

    /// The answer's words with times: heard ones, or laid over the speech as the merge lays them.
    static func words(of answer: Answer, chunk: ClosedRange<Double>, speech: [ClosedRange<Double>] = []) -> [TimedWord] {
        TranscriptMerger.tokens(of: ChunkTranscript(
            start: chunk.lowerBound, end: chunk.upperBound, text: answer.text, segments: answer.segments, words: answer.words,
            speech: speech)).words
    }

    /// How many words at the start of `head` repeat the end of `tail`: the longest such run of
    /// up to 8 words, counted when it is two words or more, or one word of `shortest` letters or
    /// more (a lone "the" or "and" is as likely said again, unless its time says it is the lead's).
    static func repeated(tail: [String], head: [String], shortest: Int = 4) -> Int {
        let tail = tail.map(TranscriptMerger.normalized)
        let head = head.map(TranscriptMerger.normalized)
        for length in stride(from: min(8, tail.count, head.count), through: 1, by: -1) {
            guard Array(tail.suffix(length)) == Array(head.prefix(length)) else { continue }
            if length >= 2 || head[0].count >= shortest { return length }
        }
        return 0
    }

    /// `regions` less `covered` (both sorted, each without overlaps within itself).
    static func subtracting(_ covered: [ClosedRange<Double>], from regions: [ClosedRange<Double>]) -> [ClosedRange<Double>] {
        var left: [ClosedRange<Double>] = []
        for region in regions {
            var start = region.lowerBound
            for cover in covered where cover.upperBound > start && cover.lowerBound < region.upperBound {
                if cover.lowerBound > start { left.append(start...cover.lowerBound) }
                start = max(start, cover.upperBound)
            }
            if start < region.upperBound { left.append(start...region.upperBound) }
        }
        return left
    }
}
