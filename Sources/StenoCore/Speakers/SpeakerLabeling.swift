import Foundation

/// Puts speakers on a chapter's sentences: each word takes the speaker of its middle, and a
/// sentence whose words change speaker is split between the two words where it changes. A
/// sentence without word times takes the speaker who holds most of its span.
public enum SpeakerLabeling {
    public static func label(_ sentences: [MergedSentence], turns: [SpeakerTurn]) -> [MergedSentence] {
        // Words go to the voice that carries the moment; a second voice over it labels nothing.
        let turns = turns.filter { !$0.overlapping }
        guard !turns.isEmpty else { return sentences }
        return sentences.flatMap { sentence -> [MergedSentence] in
            guard sentence.flag == nil else { return [sentence] }
            guard !sentence.words.isEmpty else {
                var labelled = sentence
                labelled.speaker = majority(of: sentence.start..<max(sentence.end, sentence.start + 0.001), in: turns)
                return [labelled]
            }
            var words = sentence.words
            for index in words.indices { words[index].speaker = SpeakerTurn.speaker(at: words[index].middle, in: turns) }
            var runs: [[TimedWord]] = []
            for word in words {
                if let last = runs.last?.last, last.speaker == word.speaker {
                    runs[runs.count - 1].append(word)
                } else {
                    runs.append([word])
                }
            }
            if runs.count == 1 {
                var labelled = sentence
                labelled.words = words
                labelled.speaker = words[0].speaker
                return [labelled]
            }
            return runs.enumerated().map { index, run in
                MergedSentence(
                    start: index == 0 ? min(sentence.start, run[0].start) : run[0].start,
                    end: index == runs.count - 1 ? max(sentence.end, run[run.count - 1].end) : run[run.count - 1].end,
                    text: run.map { $0.word.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " "),
                    words: run, speaker: run[0].speaker)
            }
        }
    }

    /// The speaker who holds the most of `span`, else the one nearest its middle.
    static func majority(of span: Range<Double>, in turns: [SpeakerTurn]) -> Int? {
        var held: [Int: Double] = [:]
        for turn in turns where turn.end > span.lowerBound && turn.start < span.upperBound {
            held[turn.speaker, default: 0] += min(turn.end, span.upperBound) - max(turn.start, span.lowerBound)
        }
        if let best = held.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }) { return best.key }
        return SpeakerTurn.speaker(at: (span.lowerBound + span.upperBound) / 2, in: turns)
    }

    /// Labels by the turns' groups (a chapter's own: where a sentence splits then depends on the
    /// chapter's audio alone, not on numbers other chapters gave) and gives each part its group's
    /// number. Returns the sentences and each one's group (nil where it has no speaker).
    public static func label(_ sentences: [MergedSentence], groupedTurns turns: [SpeakerTurn]) -> (sentences: [MergedSentence], groups: [Int?]) {
        var numbers: [Int: Int] = [:]
        let byGroup = turns.map { turn -> SpeakerTurn in
            var grouped = turn
            grouped.speaker = turn.group ?? turn.speaker
            numbers[grouped.speaker] = turn.speaker
            return grouped
        }
        let labelled = label(sentences, turns: byGroup)
        let groups = labelled.map(\.speaker)
        let numbered = labelled.map { sentence -> MergedSentence in
            var numbered = sentence
            numbered.speaker = sentence.speaker.flatMap { numbers[$0] }
            for index in numbered.words.indices { numbered.words[index].speaker = numbered.words[index].speaker.flatMap { numbers[$0] } }
            return numbered
        }
        return (numbered, groups)
    }
}
