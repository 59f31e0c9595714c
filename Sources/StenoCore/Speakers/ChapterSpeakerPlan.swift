import StenoInfrastructure

/// A chapter's voices grouped into speakers before they get the media's numbers: the pieces in
/// time order, each piece's group, and each group's summed embedding and speech. The merge
/// computes it outside any transaction; the store numbers the groups under the media's lock
/// (`resolve`), where it sees the speakers of every other chapter.
public struct ChapterSpeakerPlan: Sendable, Equatable {
    public var pieces: [ClosedRange<Double>]
    /// The group of each piece, 0..<groupCount, in order of first appearance.
    public var groups: [Int]
    public var groupSums: [[Float]]
    public var groupPieces: [Int]
    public var groupSeconds: [Double]
    public var count: SpeakerCount

    /// Groups the chapter's `pieces` (any order) with `clustering`. Pieces cut from one stretch
    /// of speech (each starts before or where the one before ends) are clustered as one: a single 1.6 s window
    /// says little about a voice, the mean of a stretch's windows says much more, and a voice
    /// rarely changes without a pause. A stretch of three windows or more is then read again
    /// window by window against the groups' centroids, so that a turn taken without a pause
    /// still moves the label (`resegmented`).
    public init(pieces: [VoicePiece], count: SpeakerCount, clustering: SpeakerClustering = SpeakerClustering()) {
        let ordered = pieces.sorted { $0.start < $1.start }
        let unit = ordered.map { SpeakerClustering.normalized($0.embedding) }
        var stretches: [Range<Int>] = []
        for index in ordered.indices {
            if let last = stretches.last, ordered[index].start <= ordered[last.upperBound - 1].end + 1e-6 {
                stretches[stretches.count - 1] = last.lowerBound..<(index + 1)
            } else {
                stretches.append(index..<(index + 1))
            }
        }
        let stretchEmbeddings = stretches.map { stretch in
            SpeakerClustering.normalized(SpeakerClustering.sum(stretch.map { index in unit[index].map { $0 * Float(ordered[index].duration) } }))
        }
        let stretchLabels = clustering.labels(
            of: stretchEmbeddings, count: count, weights: stretches.map { $0.reduce(0) { $0 + ordered[$1].duration } })
        var labels = [Int](repeating: 0, count: ordered.count)
        for (stretch, label) in zip(stretches, stretchLabels) {
            for index in stretch { labels[index] = label }
        }
        labels = Self.resegmented(labels, unit: unit, stretches: stretches)
        labels = SpeakerClustering.renumbered(labels)
        let groupCount = (labels.max() ?? -1) + 1
        self.pieces = ordered.map { $0.start...$0.end }
        groups = labels
        groupSums = (0..<groupCount).map { group in SpeakerClustering.sum(labels.indices.filter { labels[$0] == group }.map { unit[$0] }) }
        groupPieces = (0..<groupCount).map { group in labels.filter { $0 == group }.count }
        // Windows overlap: a group's speech is the union of its pieces, not their sum.
        groupSeconds = (0..<groupCount).map { group in
            var total = 0.0
            var reach = -Double.infinity
            for index in labels.indices where labels[index] == group {
                total += max(0, ordered[index].end - max(ordered[index].start, reach))
                reach = max(reach, ordered[index].end)
            }
            return total
        }
        self.count = count
    }

    /// Within each stretch of three windows or more, each window takes the group whose centroid
    /// it is closest to, where that group is clearly closer (by `margin`) than the stretch's
    /// own; a change must hold for two windows in a row, so one odd window does not split a turn.
    static func resegmented(_ labels: [Int], unit: [[Float]], stretches: [Range<Int>], margin: Float = 0.05) -> [Int] {
        let groupCount = (labels.max() ?? -1) + 1
        guard groupCount > 1 else { return labels }
        let centroids = (0..<groupCount).map { group in
            SpeakerClustering.normalized(SpeakerClustering.sum(labels.indices.filter { labels[$0] == group }.map { unit[$0] }))
        }
        var result = labels
        for stretch in stretches where stretch.count >= 3 {
            let own = labels[stretch.lowerBound]
            let preferred = stretch.map { index -> Int in
                let similarities = centroids.map { SpeakerClustering.dot($0, unit[index]) }
                let best = similarities.indices.max { similarities[$0] < similarities[$1] }!
                return similarities[best] - similarities[own] > margin ? best : own
            }
            for offset in preferred.indices where preferred[offset] != own {
                let before = offset > 0 && preferred[offset - 1] == preferred[offset]
                let after = offset + 1 < preferred.count && preferred[offset + 1] == preferred[offset]
                if before || after { result[stretch.lowerBound + offset] = preferred[offset] }
            }
        }
        return result
    }

    /// What the chapter adds to the media's speakers once its groups have numbers.
    public struct Resolved: Sendable, Equatable {
        /// The speaker number of each group.
        public var numbers: [Int]
        public var turns: [SpeakerTurn]
        /// Per speaker number this chapter speaks: its summed embedding, pieces and seconds.
        public var voices: [(number: Int, sum: [Float], pieces: Int, seconds: Double)]

        public static func == (lhs: Resolved, rhs: Resolved) -> Bool {
            lhs.numbers == rhs.numbers && lhs.turns == rhs.turns && lhs.voices.map(\.number) == rhs.voices.map(\.number)
        }
    }

    /// Numbers the groups against the media's `known` voices (from its other chapters).
    /// Numbers in `reserved` are never given to a new speaker.
    public func resolve(
        known: [SpeakerAssignment.Voice], reserving reserved: [Int] = [], assignment: SpeakerAssignment = SpeakerAssignment()
    ) -> Resolved {
        let numbers = assignment.numbers(of: groupSums, seconds: groupSeconds, known: known, reserving: reserved, maximum: count.maximum)
        let turns = SpeakerTurn.turns(of: pieces, speakers: groups.map { numbers[$0] })
        var voices: [(number: Int, sum: [Float], pieces: Int, seconds: Double)] = []
        for (group, number) in numbers.enumerated() {
            if let index = voices.firstIndex(where: { $0.number == number }) {
                voices[index].sum = SpeakerClustering.sum([voices[index].sum, groupSums[group]])
                voices[index].pieces += groupPieces[group]
                voices[index].seconds += groupSeconds[group]
            } else {
                voices.append((number, groupSums[group], groupPieces[group], groupSeconds[group]))
            }
        }
        return Resolved(numbers: numbers, turns: turns, voices: voices)
    }
}
