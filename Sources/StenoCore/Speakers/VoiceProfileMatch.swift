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
    /// voice. Looser than the matching of one media's chapters: the same voice in another
    /// recording (other words, another room) lies further off.
    public var threshold: Float

    /// Calibrated by `bench/speakers/profiles` on CAM++ voices (the normalised sum of 10 s
    /// windows, as the worker measures them): the calibration half of bench/speakers' split of
    /// the LibriSpeech train-clean-100 readers (115 readers, each cut into two recordings of
    /// 3-8.6 s), every recording against the other recording of each other reader of the same
    /// sex (6,502 impostor trials). 0.60 would accept 1 % of them (0.91 %); this is the 0.1 %
    /// point, because a speaker is compared with every profile of the tenant, so that the chance
    /// of a stranger being named grows with the profiles of the stranger's sex: ten of them stay
    /// near 1 %. Impostors accepted: 0.08 % on the calibration half, 0.09 % on the report half
    /// (108 other readers, 5,742 trials, never used to choose); a reader's own other recording:
    /// 100 % on both (the farthest 0.47 and 0.42 apart). Two halves of one reading sit closer
    /// than two recordings made apart would (docs/speakers.md, "Named speakers").
    public static let defaultThreshold: Float = 0.53

    /// The encoder whose voices are compared: CAM++ (`VoiceEmbedding`). A profile measured by
    /// another (Resemblyzer's GE2E, before migration 0023) names nobody until named again.
    public static let model = "campplus"

    /// The encoder a summed voice of `count` values came from: CAM++'s 192 or GE2E's 256, the
    /// only two Steno has measured with.
    public static func model(ofLength count: Int) -> String {
        count == VoiceEmbedding.dimensions ? model : "ge2e"
    }

    public init(threshold: Float = VoiceProfileMatch.defaultThreshold) {
        self.threshold = threshold
    }

    public func matches(speakers: [SpeakerAssignment.Voice], profiles: [Profile]) -> [Match] {
        var candidates: [Match] = []
        for speaker in speakers where !speaker.sum.isEmpty {
            let centroid = VoiceEmbedding.normalized(speaker.sum)
            // A voice of another length is another encoder's: its direction means nothing here.
            for profile in profiles where profile.sum.count == speaker.sum.count {
                let similarity = VoiceEmbedding.dot(centroid, VoiceEmbedding.normalized(profile.sum))
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
