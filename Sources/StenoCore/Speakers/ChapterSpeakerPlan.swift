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

    /// Groups the chapter's `pieces` (any order) with `clustering`.
    public init(pieces: [VoicePiece], count: SpeakerCount, clustering: SpeakerClustering = SpeakerClustering()) {
        let ordered = pieces.sorted { $0.start < $1.start }
        let labels = clustering.labels(of: ordered.map(\.embedding), count: count)
        let groupCount = (labels.max() ?? -1) + 1
        self.pieces = ordered.map { $0.start...$0.end }
        groups = labels
        groupSums = (0..<groupCount).map { group in
            SpeakerClustering.sum(labels.indices.filter { labels[$0] == group }.map { SpeakerClustering.normalized(ordered[$0].embedding) })
        }
        groupPieces = (0..<groupCount).map { group in labels.filter { $0 == group }.count }
        groupSeconds = (0..<groupCount).map { group in
            labels.indices.filter { labels[$0] == group }.reduce(0) { $0 + ordered[$1].duration }
        }
        self.count = count
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
        let numbers = assignment.numbers(of: groupSums, known: known, reserving: reserved, maximum: count.maximum)
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
