/// Cuts transcript segments into subtitle cues that fit a `CaptionLayout`.
///
/// A segment too long for one cue, in characters or in time on screen, is split into several. Each cue's times come from the word
/// times when the backend gave them; words it did not time (or a segment without word times)
/// share the time between their timed neighbours in proportion to their length in characters.
/// Cues never overlap and always last at least a millisecond, which players require.
public struct CaptionCueBuilder: Sendable {
    public var layout: CaptionLayout

    public init(layout: CaptionLayout = CaptionLayout()) {
        self.layout = layout
    }

    /// The cues of each group of segments (a chapter, say), in order, timed consistently across groups.
    public func cueGroups(for groups: [[Transcript.Segment]]) -> [[CaptionCue]] {
        let perGroup = groups.map { $0.flatMap(cues(for:)) }
        var flattened = Self.removingOverlaps(perGroup.flatMap { $0 })
        return perGroup.map { group in
            let taken = Array(flattened.prefix(group.count))
            flattened.removeFirst(group.count)
            return taken
        }
    }

    /// The cues of consecutive segments.
    public func cues(forSegments segments: [Transcript.Segment]) -> [CaptionCue] {
        cueGroups(for: [segments])[0]
    }

    private struct TimedToken {
        var text: String
        var start: Double
        var end: Double
    }

    /// The cues of one segment, before `removingOverlaps` (or `CaptionCueSequence`) orders them.
    func cues(for segment: Transcript.Segment) -> [CaptionCue] {
        let tokens = timedTokens(segment)
        return groupIntoCues(tokens).map { group in
            CaptionCue(
                start: group[0].start, end: min(group[group.count - 1].end, group[0].start + layout.maxCueSeconds),
                lines: layoutLines(group.map(\.text)), speaker: segment.speaker)
        }
    }

    // MARK: Timing

    private func timedTokens(_ segment: Transcript.Segment) -> [TimedToken] {
        let texts = Self.words(of: segment.text).flatMap { splitOverlong($0) }
        guard !texts.isEmpty else { return [] }
        let segmentStart = segment.start
        let segmentEnd = max(segment.end, segment.start)
        var starts = [Double?](repeating: nil, count: texts.count)
        var ends = [Double?](repeating: nil, count: texts.count)
        if let words = segment.words, !words.isEmpty {
            align(texts, to: words, starts: &starts, ends: &ends, within: segmentStart...segmentEnd)
        }
        // Runs of untimed tokens share the gap between their timed neighbours by character count.
        var index = 0
        while index < texts.count {
            guard starts[index] == nil else {
                index += 1
                continue
            }
            var runEnd = index
            while runEnd < texts.count, starts[runEnd] == nil { runEnd += 1 }
            let gapStart = index > 0 ? ends[index - 1]! : segmentStart
            let gapEnd = max(gapStart, runEnd < texts.count ? starts[runEnd]! : segmentEnd)
            let weights = texts[index..<runEnd].map { Double($0.count + 1) }
            let total = weights.reduce(0, +)
            var cursor = gapStart
            for (offset, weight) in weights.enumerated() {
                let length = (gapEnd - gapStart) * weight / total
                starts[index + offset] = cursor
                ends[index + offset] = cursor + length
                cursor += length
            }
            index = runEnd
        }
        return texts.indices.map { TimedToken(text: texts[$0], start: starts[$0]!, end: max(ends[$0]!, starts[$0]!)) }
    }

    /// Matches the text's tokens to the backend's words in order, comparing letters and digits only:
    /// the words often lack the punctuation of the text, and a backend may drop or add a word.
    private func align(
        _ texts: [String], to words: [Transcript.Word], starts: inout [Double?], ends: inout [Double?],
        within bounds: ClosedRange<Double>
    ) {
        let lookahead = 4
        // Each word's key once, not once per token it is compared with.
        let keys = words.map { Self.comparable($0.word) }
        var next = 0
        var lastEnd = bounds.lowerBound
        for (index, text) in texts.enumerated() {
            let key = Self.comparable(text)
            guard !key.isEmpty else { continue }
            var candidate = next
            while candidate < min(words.count, next + lookahead) {
                if keys[candidate] == key {
                    let start = min(max(words[candidate].start, lastEnd), bounds.upperBound)
                    let end = min(max(words[candidate].end, start), bounds.upperBound)
                    starts[index] = start
                    ends[index] = end
                    lastEnd = end
                    next = candidate + 1
                    break
                }
                candidate += 1
            }
        }
    }

    static func comparable(_ text: String) -> String {
        // ASCII text (most of it) by its bytes: its letters and digits are exactly what
        // `isLetter` and `isNumber` accept there, and lowercasing is a shift; the Unicode
        // property lookups took a fifth of a caption export.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count)
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): bytes.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte + 32)
                default: break
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(text.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// The text's whitespace-separated words. ASCII text is split on its bytes: there the
    /// whitespace `Character.isWhitespace` knows is tab to carriage return and space.
    static func words(of text: String) -> [String] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.split(whereSeparator: { $0 == 0x20 || (0x09...0x0D).contains($0) }).map { String(decoding: $0, as: UTF8.self) }
        }
        return text.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// A token longer than a line (a URL, say) is cut into line-sized pieces.
    private func splitOverlong(_ token: String) -> [String] {
        guard token.count > layout.maxCharactersPerLine else { return [token] }
        var pieces: [String] = []
        var rest = Substring(token)
        while !rest.isEmpty {
            pieces.append(String(rest.prefix(layout.maxCharactersPerLine)))
            rest = rest.dropFirst(layout.maxCharactersPerLine)
        }
        return pieces
    }

    // MARK: Layout

    private func groupIntoCues(_ tokens: [TimedToken]) -> [[TimedToken]] {
        let capacity = layout.maxCharactersPerLine * layout.maxLinesPerCue
        var groups: [[TimedToken]] = []
        var current: [TimedToken] = []
        // `greedyLines(current)`, kept as tokens are added rather than made again for each.
        var lines = GreedyLines(maxCharactersPerLine: layout.maxCharactersPerLine)
        for token in tokens {
            let withToken = lines.adding(token.text)
            if !current.isEmpty, withToken.count > layout.maxLinesPerCue || token.end - current[0].start > layout.maxCueSeconds {
                groups.append(current)
                current = []
                lines = GreedyLines(maxCharactersPerLine: layout.maxCharactersPerLine).adding(token.text)
            } else {
                lines = withToken
            }
            current.append(token)
            // A sentence that ends past the middle of a cue ends the cue: easier to read than a cue
            // that starts a new sentence with one or two words.
            if Self.endsSentence(token.text), Self.joinedLength(current.map(\.text)) * 2 >= capacity {
                groups.append(current)
                current = []
                lines = GreedyLines(maxCharactersPerLine: layout.maxCharactersPerLine)
            }
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }

    private static func endsSentence(_ token: String) -> Bool {
        guard let last = token.last(where: { $0 != "\"" && $0 != "'" && $0 != ")" && $0 != "”" && $0 != "’" }) else { return false }
        return last == "." || last == "?" || last == "!" || last == "…"
    }

    /// `greedyLines` one word at a time: how many lines, and the last one.
    private struct GreedyLines {
        let maxCharactersPerLine: Int
        var count = 0
        var line = ""
        var lineLength = 0

        init(maxCharactersPerLine: Int) {
            self.maxCharactersPerLine = maxCharactersPerLine
        }

        func adding(_ word: String) -> GreedyLines {
            var next = self
            let wordLength = word.count
            if line.isEmpty {
                next.count += 1
                next.line = word
                next.lineLength = wordLength
            } else if lineLength + 1 + wordLength <= maxCharactersPerLine {
                next.line += " " + word
                next.lineLength = next.line.count
            } else {
                next.count += 1
                next.line = word
                next.lineLength = wordLength
            }
            return next
        }
    }

    /// Fills lines one word at a time: the fewest lines the words can take.
    private func greedyLines(_ words: [String]) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in words {
            if line.isEmpty {
                line = word
            } else if line.count + 1 + word.count <= layout.maxCharactersPerLine {
                line += " " + word
            } else {
                lines.append(line)
                line = word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// The lines of one cue; two lines are balanced so that neither is much longer than the other.
    private func layoutLines(_ words: [String]) -> [String] {
        let greedy = greedyLines(words)
        guard greedy.count == 2 else { return greedy }
        var best = greedy
        var bestDifference = abs(greedy[0].count - greedy[1].count)
        if words.allSatisfy(Self.isASCII) {
            // ASCII words: a joined line's length is the words' bytes and the spaces between,
            // so each break is weighed without making its two lines.
            let lengths = words.map(\.utf8.count)
            let total = lengths.reduce(0, +) + words.count - 1
            var topLength = -1
            var bestBreak: Int?
            for breakIndex in 1..<words.count {
                topLength += lengths[breakIndex - 1] + 1
                let bottomLength = total - topLength - 1
                guard topLength <= layout.maxCharactersPerLine, bottomLength <= layout.maxCharactersPerLine else { continue }
                let difference = abs(topLength - bottomLength)
                if difference < bestDifference {
                    bestBreak = breakIndex
                    bestDifference = difference
                }
            }
            guard let bestBreak else { return best }
            return [words[..<bestBreak].joined(separator: " "), words[bestBreak...].joined(separator: " ")]
        }
        for breakIndex in 1..<words.count {
            let top = words[..<breakIndex].joined(separator: " ")
            let bottom = words[breakIndex...].joined(separator: " ")
            guard top.count <= layout.maxCharactersPerLine, bottom.count <= layout.maxCharactersPerLine else { continue }
            let difference = abs(top.count - bottom.count)
            if difference < bestDifference {
                best = [top, bottom]
                bestDifference = difference
            }
        }
        return best
    }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// `texts.joined(separator: " ").count`, without the join for ASCII text.
    private static func joinedLength(_ texts: [String]) -> Int {
        guard texts.allSatisfy(isASCII) else { return texts.joined(separator: " ").count }
        return texts.reduce(0) { $0 + $1.utf8.count } + max(0, texts.count - 1)
    }

    // MARK: Order

    /// Players need cues in order that do not overlap: each cue starts after the previous one
    /// started, and the previous one ends when the next begins at the latest.
    static func removingOverlaps(_ cues: [CaptionCue]) -> [CaptionCue] {
        let minimumLength = 0.001
        var result = cues
        for index in result.indices {
            if index > 0 {
                result[index].start = max(result[index].start, result[index - 1].start + minimumLength)
            }
            result[index].end = max(result[index].end, result[index].start + minimumLength)
            if index > 0, result[index - 1].end > result[index].start {
                result[index - 1].end = result[index].start
            }
        }
        return result
    }
}
