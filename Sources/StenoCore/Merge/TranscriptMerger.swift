import StenoInfrastructure


/// Joins the transcripts of a chapter's chunks into one list of sentences on the media's clock.
///
/// Most cuts fall in a clear pause and the chunks on either side do not overlap: their words
/// are simply joined. Where a cut found no pause, the neighbours share an overlap and the words
/// spoken in it come back twice, each side hearing the words at its edge cut off or not at all.
/// The two sides are then aligned on their text, as the Hugging Face pipeline's
/// longest-common-sequence merge does: the offset at which the most words agree (and, with word
/// times, agree in time too) wins, and the seam goes in the middle of the agreeing words, so
/// each edge word comes from the side that heard it whole. The alignment is bounded by time
/// (only words near the overlap, agreeing words close in time) and needs more than one word to
/// agree, or one long word that is both sides' edge. When the text finds no agreement, timed
/// words are cut at the middle of the overlap and text-only ones are kept; either way an edge
/// word one side heard cut off gives way to the whole one. Chunks that came back empty are
/// skipped, and their neighbours keep all their words.
///
/// Words without times (backends that answer text only) are laid over the speech the planner
/// measured in the chunk, sentence ends in its pauses (`UntimedWordLayout`), so that sentence
/// times follow the speech.
public struct TranscriptMerger: Sendable {
    /// A sentence ends at `.`, `?` or `!`; backends without punctuation also end one at a pause
    /// this long, or after this many words, so that rows stay short enough to read and seek.
    public var sentencePause: Double
    public var longestSentenceWords: Int
    /// The most words of each side compared when aligning an overlap.
    public var longestTextOverlap: Int
    /// How far outside the overlap a timed word may still be one of its words (whisper
    /// stretches a chunk's edge words towards the edge), and how far apart two timed words
    /// that agree may be.
    public var timeSlack: Double

    public init(sentencePause: Double = 0.6, longestSentenceWords: Int = 30, longestTextOverlap: Int = 12, timeSlack: Double = 1.0) {
        self.sentencePause = sentencePause
        self.longestSentenceWords = longestSentenceWords
        self.longestTextOverlap = longestTextOverlap
        self.timeSlack = timeSlack
    }

    /// The sentences of a chapter spanning `chapter` (seconds on the media's clock).
    public func merge(_ chunks: [ChunkTranscript], chapter: ClosedRange<Double>) -> [MergedSentence] {
        let words = mergedWords(chunks, chapter: chapter)
        // Pauses between words placed by estimate are not the speaker's: only punctuation and
        // length end their sentences, and stretches without speech.
        let timed = chunks.contains { !$0.words.isEmpty }
        return sentences(words, endingAtPauses: timed, speech: chunks.flatMap(\.speech))
    }

    /// A sentence never spans more non-speech than this (music, silence, noise between its
    /// words): it is cut there, so that no subtitle stays up over the music.
    public static let longestNonSpeech = 2.0

    /// Every word of the chapter once, in order, with times inside the chapter.
    public func mergedWords(_ chunks: [ChunkTranscript], chapter: ClosedRange<Double>) -> [TimedWord] {
        let pieces = chunks.sorted { $0.start < $1.start }
            .map { (chunk: $0, tokens: Self.tokens(of: $0)) }
            .filter { !$0.tokens.words.isEmpty }
        var merged: [TimedWord] = []
        // The previous piece and where its words start in `merged`.
        var previous: (chunk: ChunkTranscript, timed: Bool, first: Int)?
        for piece in pieces {
            var words = piece.tokens.words
            if let left = previous, left.chunk.end > piece.chunk.start {
                let seam = seam(
                    left: Array(merged[left.first...]), leftTimed: left.timed,
                    right: words, rightTimed: piece.tokens.timed,
                    overlap: piece.chunk.start...left.chunk.end)
                merged.removeLast(merged.count - left.first - seam.leftKeeps)
                words.removeFirst(seam.rightDrops)
            }
            previous = (piece.chunk, piece.tokens.timed, merged.count)
            merged += words
        }
        return Self.placed(merged, inside: chapter)
    }

    /// Where two overlapping sides join: how many of the left side's words stay, and how many
    /// of the right side's first words go.
    struct Seam: Equatable {
        var leftKeeps: Int
        var rightDrops: Int
    }

    func seam(left: [TimedWord], leftTimed: Bool, right: [TimedWord], rightTimed: Bool, overlap: ClosedRange<Double>) -> Seam {
        let timed = leftTimed && rightTimed
        // The words that may have been heard by both sides are those near the overlap in time:
        // heard times within `timeSlack`, times Steno estimated within `untimedSlack(...)`. A
        // word the text holds twice is then only one of them, not the copy ten words earlier
        // ("...the Kingsford Gazette. Farmers ... grain to Kingsford instead of").
        var leftFirst = max(0, left.count - longestTextOverlap)
        var rightEnd = min(right.count, longestTextOverlap)
        let slack = timed ? timeSlack : Self.untimedSlack(left[leftFirst...] + right[..<rightEnd])
        while leftFirst < left.count, left[leftFirst].end < overlap.lowerBound - slack { leftFirst += 1 }
        while rightEnd > 0, right[rightEnd - 1].start > overlap.upperBound + slack { rightEnd -= 1 }
        let tail = left[leftFirst...].map { Self.normalized($0.word) }
        let head = right[..<rightEnd].map { Self.normalized($0.word) }

        struct Alignment { var exact: [(left: Int, right: Int)]; var score: Double; var compared: Int; var drift: Double }
        var best: Alignment?
        if !tail.isEmpty, !head.isEmpty {
            // Right word j against left word offset + j, for every offset that compares any.
            for offset in (1 - head.count)...(tail.count - 1) {
                var exact: [(left: Int, right: Int)] = []
                var score = 0.0
                var compared = 0
                var drift = 0.0
                var run = 0
                var longestRun = 0
                for j in head.indices where offset + j >= 0 && offset + j < tail.count {
                    let i = offset + j
                    compared += 1
                    let apart = abs(left[leftFirst + i].middle - right[j].middle)
                    let together = apart <= slack
                    // The edge words, which one side heard cut off, may agree in part.
                    let edge = i == tail.count - 1 || j == 0
                    if together, !tail[i].isEmpty, tail[i] == head[j] {
                        exact.append((i, j))
                        score += 1
                        drift += apart
                    } else if together, edge, Self.partlyAlike(tail[i], head[j]) {
                        score += 0.5
                    } else {
                        run = 0
                        continue
                    }
                    run += 1
                    longestRun = max(longestRun, run)
                }
                // More than one word must agree: one word alike somewhere on both sides, even a
                // long one, is as likely a word the text says twice as the overlap. One whole word
                // beside an edge word heard cut off ("to Kings" and "to Kingsford") is two; so is
                // a long word that is both sides' edge, the last the left heard and the first the
                // right heard ("...20 minutes. Thomas." | "Thomas Scott, a cup..."): its place
                // agrees as well as its text.
                let edgePair = exact.count == 1 && exact[0].left == tail.count - 1 && exact[0].right == 0
                    && tail[exact[0].left].count >= (timed ? 4 : 5)
                guard exact.count >= 2 || (exact.count == 1 && longestRun >= 2) || edgePair else { continue }
                let candidate = Alignment(exact: exact, score: score, compared: compared, drift: drift / Double(exact.count))
                if let current = best {
                    // More agreement wins; then the offset whose words lie closer in time; then
                    // the one comparing fewer words.
                    if candidate.score != current.score {
                        if candidate.score < current.score { continue }
                    } else if abs(candidate.drift - current.drift) > 0.05 {
                        if candidate.drift > current.drift { continue }
                    } else if candidate.compared >= current.compared {
                        continue
                    }
                }
                best = candidate
            }
        }
        if let best {
            let middle = best.exact[best.exact.count / 2]
            return Seam(leftKeeps: leftFirst + middle.left, rightDrops: middle.right)
        }
        // No agreement. Heard times place a seam: each side keeps what lies on its side of the
        // overlap's middle. Estimated times do not: on a noisy book cut by loudness, a cut at
        // the middle by them lost words only one side had written ("...his arms etched." |
        // "that she did..."), so text-only sides keep their words.
        let cut = (overlap.lowerBound + overlap.upperBound) / 2
        var seam = timed
            ? Seam(leftKeeps: left.firstIndex { $0.middle >= cut } ?? left.count, rightDrops: right.firstIndex { $0.middle >= cut } ?? right.count)
            : Seam(leftKeeps: left.count, rightDrops: 0)
        // The cut can fall between two renderings of one edge word, one side having heard it cut
        // off ("to Kings" | "Kingsford instead"): the one heard whole, the longer, stays.
        if seam.leftKeeps > 0, seam.rightDrops < right.count {
            let last = left[seam.leftKeeps - 1]
            let next = right[seam.rightDrops]
            let (one, other) = (Self.normalized(last.word), Self.normalized(next.word))
            if one != other, Self.partlyAlike(one, other), abs(last.middle - next.middle) <= slack {
                if one.count < other.count { seam.leftKeeps -= 1 } else { seam.rightDrops += 1 }
            }
        }
        return seam
    }

    /// How far apart two words Steno placed by estimate (laid over the speech, not heard) may be
    /// and still be one spoken word: 4 of their typical length, at least 2 s. The layout is
    /// anchored at the chunk's edges, where its error is a word or two; a word said again ten
    /// words later (about 4 s at a reader's pace) stays outside.
    static func untimedSlack(_ words: some Collection<TimedWord>) -> Double {
        let lengths = words.map { $0.end - $0.start }.sorted()
        guard !lengths.isEmpty else { return minimumUntimedSlack }
        return max(minimumUntimedSlack, 4 * lengths[lengths.count / 2])
    }

    static let minimumUntimedSlack = 2.0

    /// Splits words into sentences at final punctuation, at long pauses (when `endingAtPauses`)
    /// and at a length limit.
    /// With `speech` (the chapter's detected speech), a gap holding more than `longestNonSpeech`
    /// of non-speech ends a sentence whatever its length; without, such a gap of silence does.
    public func sentences(_ words: [TimedWord], endingAtPauses: Bool = true, speech: [ClosedRange<Double>] = []) -> [MergedSentence] {
        let speech = speech.sorted { $0.lowerBound < $1.lowerBound }
        var sentences: [MergedSentence] = []
        var current: [TimedWord] = []
        func close() {
            guard let first = current.first, let last = current.last else { return }
            // Times Steno estimated place the sentence; only heard ones are kept as word times.
            let heard = current.contains(where: \.estimated) ? [] : current
            sentences.append(MergedSentence(
                start: first.start, end: last.end, text: current.map(\.word).joined(separator: " "), words: heard))
            current = []
        }
        for (index, word) in words.enumerated() {
            current.append(word)
            let endsSentence = word.word.last.map { ".?!".contains($0) } ?? false
            let pauseFollows = endingAtPauses && index + 1 < words.count && words[index + 1].start - word.end >= sentencePause
            let nonSpeechFollows = index + 1 < words.count
                && Self.nonSpeech(between: word.end, and: words[index + 1].start, speech: speech) > Self.longestNonSpeech
            if endsSentence || current.count >= longestSentenceWords || (pauseFollows && current.count >= 3) || nonSpeechFollows {
                close()
            }
        }
        close()
        return sentences
    }

    /// Seconds between `start` and `end` outside `speech` (all of them when no speech is known).
    static func nonSpeech(between start: Double, and end: Double, speech: [ClosedRange<Double>]) -> Double {
        guard end > start else { return 0 }
        return end - start - SpeechRegions.seconds(of: speech, within: start...end)
    }

    /// The longest stretch of speech at a segment's start that still counts as the previous
    /// segment's tail when it began before the segment.
    static let borrowedTail = 0.5

    /// The words of a chunk: the backend's word times, else words laid over the speech of
    /// their segment (or of the chunk), marked untimed so that the merge aligns them by text.
    static func tokens(of chunk: ChunkTranscript) -> (words: [TimedWord], timed: Bool) {
        let words = chunk.words.filter { !normalized($0.word).isEmpty }
        if !words.isEmpty { return (SpeechSnap.words(words, onto: chunk.speech), true) }
        let segments = chunk.segments.isEmpty
            ? [TimedSegment(start: chunk.start, end: chunk.end, text: chunk.text)]
            : chunk.segments
        var laid: [TimedWord] = []
        for segment in segments {
            let texts = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard !texts.isEmpty else { continue }
            let bounds = segment.start...max(segment.start, segment.end)
            var speech = SpeechRegions.clip(Self.heard(chunk.speech), to: bounds)
            // Whisper stamps a segment's start early, often inside the last words of the one
            // before: a short tail of speech that began before the segment is not its own.
            if speech.count > 1, let first = chunk.speech.first(where: { $0.upperBound > bounds.lowerBound }),
               first.lowerBound < bounds.lowerBound, first.upperBound - bounds.lowerBound < Self.borrowedTail {
                speech.removeFirst()
            }
            laid += UntimedWordLayout.lay(texts, over: speech.isEmpty ? [bounds] : speech)
        }
        return (laid, false)
    }

    /// The detector hears a voice start late (up to a second after music): words laid without
    /// times begin this much before each detected stretch. Less than `SpeechSnap.onsetLag`, since
    /// these times are Steno's guess, not the backend's: on the bench episodes 0.3 s brought a
    /// sentence after a music intro from 1.02 s to within 1 s of its speech, and no first word
    /// moved more than 0.25 s into the music before an accurately detected start.
    static let untimedLead = 0.3

    /// `speech` with each stretch begun `untimedLead` earlier, overlapping stretches joined.
    static func heard(_ speech: [ClosedRange<Double>]) -> [ClosedRange<Double>] {
        SpeechRegions.joined(speech.map { ($0.lowerBound - untimedLead)...$0.upperBound })
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

    /// Two renderings of an edge word that one side heard cut off ("limbed" for "climbed",
    /// "stay" for "stairs"): they share at least three letters at the start or the end.
    static func partlyAlike(_ one: String, _ other: String) -> Bool {
        guard one.count >= 3, other.count >= 3 else { return false }
        let prefix = zip(one, other).prefix { $0 == $1 }.count
        let suffix = zip(one.reversed(), other.reversed()).prefix { $0 == $1 }.count
        return prefix >= 3 || suffix >= 3
    }

    /// Lowercased letters and digits: what two renderings of the same spoken word share.
    public static func normalized(_ word: String) -> String {
        String(word.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
