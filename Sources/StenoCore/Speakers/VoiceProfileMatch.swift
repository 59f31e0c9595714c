/// Recognises a tenant's named voices in a media: each of the media's unnamed speakers takes
/// the name of the closest profile when their centroids are within `threshold` (cosine
/// distance), each profile at most once, the closest pairs first.
public struct VoiceProfileMatch: Sendable {
    public struct Profile: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var sum: [Float]

        public init(id: Int64, name: String, sum: [Float]) {
            self.id = id
            self.name = name
            self.sum = sum
        }
    }

    public struct Match: Sendable, Equatable {
        public var number: Int
        public var profileID: Int64
        public var name: String
        /// Cosine similarity of the two centroids: 1 is the same direction.
        public var similarity: Float
    }

    /// Cosine distance between a speaker's centroid and a profile's under which they are one
    /// voice. Looser than the matching of one media's chapters (`SpeakerAssignment`): the same
    /// voice in another recording (other words, another room) lies further off. Calibrated in
    /// docs/speakers.md.
    public var threshold: Float

    public static let defaultThreshold: Float = 0.25

    public init(threshold: Float = VoiceProfileMatch.defaultThreshold) {
        self.threshold = threshold
    }

    public func matches(speakers: [SpeakerAssignment.Voice], profiles: [Profile]) -> [Match] {
        var candidates: [Match] = []
        for speaker in speakers where !speaker.sum.isEmpty {
            let centroid = SpeakerClustering.normalized(speaker.sum)
            for profile in profiles where !profile.sum.isEmpty {
                let similarity = SpeakerClustering.dot(centroid, SpeakerClustering.normalized(profile.sum))
                if 1 - similarity <= threshold {
                    candidates.append(Match(number: speaker.number, profileID: profile.id, name: profile.name, similarity: similarity))
                }
            }
        }
        var chosen: [Match] = []
        for candidate in candidates.sorted(by: { $0.similarity > $1.similarity })
        where !chosen.contains(where: { $0.number == candidate.number || $0.profileID == candidate.profileID }) {
            chosen.append(candidate)
        }
        return chosen.sorted { $0.number < $1.number }
    }
}
