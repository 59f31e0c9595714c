/// A stretch of one speaker's speech on the media's clock. Turns of one speaker at a time say
/// who carries each moment; a turn marked `overlapping` is a second voice talking at once over
/// someone else's turn (exports list both there; words go to the one who carries the moment).
public struct SpeakerTurn: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double
    /// The media's speaker number, from 1 (a chapter's group, from 0, inside a plan).
    public var speaker: Int
    /// A second voice over another's turn.
    public var overlapping: Bool
    /// The chapter's own group the turn belongs to: what the media's final numbering maps.
    public var group: Int?

    public init(start: Double, end: Double, speaker: Int, overlapping: Bool = false, group: Int? = nil) {
        self.start = start
        self.end = end
        self.speaker = speaker
        self.overlapping = overlapping
        self.group = group
    }

    enum CodingKeys: String, CodingKey {
        case start, end, speaker, overlapping, group
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        start = try container.decode(Double.self, forKey: .start)
        end = try container.decode(Double.self, forKey: .end)
        speaker = try container.decode(Int.self, forKey: .speaker)
        overlapping = try container.decodeIfPresent(Bool.self, forKey: .overlapping) ?? false
        group = try container.decodeIfPresent(Int.self, forKey: .group)
    }

    /// Turns stored before overlap and groups existed read back as they were written.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(speaker, forKey: .speaker)
        if overlapping { try container.encode(true, forKey: .overlapping) }
        try container.encodeIfPresent(group, forKey: .group)
    }

    /// The speaker at `time`: the turn holding it, else the nearest turn (a word in a pause, or
    /// in speech too short to measure, belongs to whoever spoke closest to it). Turns in order,
    /// one speaker at a time (no `overlapping` ones).
    public static func speaker(at time: Double, in turns: [SpeakerTurn]) -> Int? {
        guard !turns.isEmpty else { return nil }
        // The first turn that ends after `time`.
        var low = 0
        var high = turns.count
        while low < high {
            let middle = (low + high) / 2
            if turns[middle].end <= time { low = middle + 1 } else { high = middle }
        }
        if low < turns.count, turns[low].start <= time { return turns[low].speaker }
        let after = low < turns.count ? turns[low] : nil
        let before = low > 0 ? turns[low - 1] : nil
        switch (before, after) {
        case let (before?, after?): return time - before.end <= after.start - time ? before.speaker : after.speaker
        case let (before?, nil): return before.speaker
        case let (nil, after?): return after.speaker
        case (nil, nil): return nil
        }
    }
}
