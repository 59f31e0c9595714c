/// Word error rate: the word-level edit distance (substitutions, deletions, insertions) between a
/// reference text and a hypothesis, divided by the number of reference words.
///
/// Both texts are normalised first: lowercase, punctuation removed (apostrophes inside words
/// kept), so that "Harbour." and "harbour" count as the same word.
public struct WordErrorRate: Sendable, Equatable, CustomStringConvertible {
    public var substitutions: Int
    public var deletions: Int
    public var insertions: Int
    public var referenceWords: Int

    public var errors: Int { substitutions + deletions + insertions }
    public var rate: Double { referenceWords == 0 ? (errors == 0 ? 0 : 1) : Double(errors) / Double(referenceWords) }

    public var description: String {
        "WER \(Int((rate * 1000).rounded()) / 10)% (\(substitutions) substituted, \(deletions) deleted, \(insertions) inserted of \(referenceWords) words)"
    }

    public init(reference: String, hypothesis: String) {
        self.init(reference: Self.words(reference), hypothesis: Self.words(hypothesis))
    }

    public init(reference: [String], hypothesis: [String]) {
        // One row of the Levenshtein table at a time, each cell the cheapest (errors, substitutions,
        // deletions, insertions) alignment of the prefixes.
        typealias Cell = (cost: Int, substitutions: Int, deletions: Int, insertions: Int)
        var previous: [Cell] = (0...hypothesis.count).map { ($0, 0, 0, $0) }
        for (row, referenceWord) in reference.enumerated() {
            var current: [Cell] = [(row + 1, 0, row + 1, 0)]
            for (column, hypothesisWord) in hypothesis.enumerated() {
                let diagonal = previous[column]
                let match: Cell =
                    referenceWord == hypothesisWord
                    ? diagonal
                    : (diagonal.cost + 1, diagonal.substitutions + 1, diagonal.deletions, diagonal.insertions)
                let up = previous[column + 1]
                let deletion: Cell = (up.cost + 1, up.substitutions, up.deletions + 1, up.insertions)
                let left = current[column]
                let insertion: Cell = (left.cost + 1, left.substitutions, left.deletions, left.insertions + 1)
                current.append([match, deletion, insertion].min { $0.cost < $1.cost }!)
            }
            previous = current
        }
        let best = previous[hypothesis.count]
        substitutions = best.substitutions
        deletions = best.deletions
        insertions = best.insertions
        referenceWords = reference.count
    }

    /// Lowercased words without punctuation.
    public static func words(_ text: String) -> [String] {
        text.lowercased()
            .split { !($0.isLetter || $0.isNumber || $0 == "'") }
            .map { $0.trimmingApostrophes() }
            .filter { !$0.isEmpty }
    }
}

extension Substring {
    fileprivate func trimmingApostrophes() -> String {
        String(drop { $0 == "'" }.reversed().drop { $0 == "'" }.reversed())
    }
}
