/// Gives a chapter's groups of voices (from `SpeakerClustering`) the media's speaker numbers:
/// a group whose voice is close enough to a speaker already known from the media's other
/// chapters becomes that speaker; any other a new speaker, numbered after the last. Numbers once
/// given never change, so a long recording shows its speakers as its chapters finish without
/// renumbering those already shown.
public struct SpeakerAssignment: Sendable {
    /// A voice as summed embeddings: its centroid is the sum's direction.
    public struct Voice: Sendable, Equatable {
        public var number: Int
        public var sum: [Float]
        public var pieces: Int

        public init(number: Int, sum: [Float], pieces: Int) {
            self.number = number
            self.sum = sum
            self.pieces = pieces
        }
    }

    /// Cosine distance between two centroids under which they are one voice. Centroids of
    /// many pieces sit closer than single pieces do, so this is tighter than the clustering's.
    public var threshold: Float

    public static let defaultThreshold: Float = 0.25

    public init(threshold: Float = SpeakerAssignment.defaultThreshold) {
        self.threshold = threshold
    }

    /// The speaker number of each group (groups in order of first appearance in the chapter),
    /// given the media's `known` voices, numbers already `reserved` (given before, whatever
    /// became of them) and the most speakers it may have.
    public func numbers(of groups: [[Float]], known: [Voice], reserving reserved: [Int] = [], maximum: Int?) -> [Int] {
        var voices = known.map { (number: $0.number, centroid: SpeakerClustering.normalized($0.sum)) }
        var next = ((known.map(\.number) + reserved).max() ?? 0) + 1
        var result: [Int] = []
        for group in groups {
            let centroid = SpeakerClustering.normalized(group)
            let best = voices.max { SpeakerClustering.dot($0.centroid, centroid) < SpeakerClustering.dot($1.centroid, centroid) }
            let distance = best.map { 1 - SpeakerClustering.dot($0.centroid, centroid) } ?? .infinity
            let full = maximum.map { voices.count >= $0 } ?? false
            if let best, distance <= threshold || full {
                result.append(best.number)
            } else {
                voices.append((next, centroid))
                result.append(next)
                next += 1
            }
        }
        return result
    }
}
