/// Gives a chapter's groups of voices the media's provisional speaker numbers while the media is
/// in progress: a group whose voice is close enough to a speaker already known from the media's
/// other chapters becomes that speaker; any other a new speaker, numbered after the last. Numbers
/// given during progress do not change until the media is done, so a long recording shows its
/// speakers as its chapters finish; then `MediaSpeakerNumbering` gives the final ones.
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

        /// One voice per number: the shares of several chapters (or the chapters before and
        /// this one) added up, in order of first appearance.
        public static func combined(_ shares: [Voice]) -> [Voice] {
            var voices: [Voice] = []
            for share in shares {
                if let index = voices.firstIndex(where: { $0.number == share.number }) {
                    voices[index].sum = VoiceEmbedding.sum([voices[index].sum, share.sum])
                    voices[index].pieces += share.pieces
                } else {
                    voices.append(share)
                }
            }
            return voices
        }
    }

    /// Cosine distance between two centroids under which they are one voice
    /// (`SpeakerSettings.chapterMatchThreshold`).
    public var threshold: Float

    public init(threshold: Float = SpeakerSettings.calibrated.chapterMatchThreshold) {
        self.threshold = threshold
    }

    /// Speech under which a chapter's group that matches no known voice is not taken for a new
    /// speaker (a cough, a laugh, a word too short to place a voice): it joins the closest one
    /// (`SpeakerSettings.smallestSpeaker`).
    public var smallestNewSpeaker: Double = SpeakerSettings.calibrated.smallestSpeaker

    /// The speaker number of each group (groups in order of first appearance in the chapter,
    /// `seconds` of speech each), given the media's `known` voices, numbers already `reserved`
    /// (given before, whatever became of them) and the most speakers it may have. Groups close
    /// to a known voice take its number; other groups of `smallestNewSpeaker` seconds or more
    /// become new speakers, in order; smaller ones join the closest speaker there is then.
    public func numbers(
        of groups: [[Float]], seconds: [Double]? = nil, known: [Voice], reserving reserved: [Int] = [], maximum: Int?
    ) -> [Int] {
        var voices = known.map { (number: $0.number, centroid: VoiceEmbedding.normalized($0.sum)) }
        var next = ((known.map(\.number) + reserved).max() ?? 0) + 1
        let centroids = groups.map(VoiceEmbedding.normalized)
        func closest(_ centroid: [Float]) -> (number: Int, distance: Float)? {
            voices.map { ($0.number, 1 - VoiceEmbedding.dot($0.centroid, centroid)) }.min { $0.1 < $1.1 }
        }
        var result = [Int?](repeating: nil, count: groups.count)
        let small = groups.indices.map { (seconds?[$0] ?? .infinity) < smallestNewSpeaker }
        // Large groups first, in order; then the small ones, which may join a new speaker.
        for pass in [false, true] {
            for index in groups.indices where small[index] == pass {
                let nearest = closest(centroids[index])
                let full = maximum.map { voices.count >= $0 } ?? false
                if let nearest, nearest.distance <= threshold || full || (pass && voices.count > 0) {
                    result[index] = nearest.number
                } else {
                    voices.append((next, centroids[index]))
                    result[index] = next
                    next += 1
                }
            }
        }
        return result.map { $0! }
    }
}
