/// A stretch of one speaker's speech on the media's clock: consecutive voice pieces given the
/// same speaker, joined across the pauses between them.
public struct SpeakerTurn: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double
    /// The media's speaker number, from 1.
    public var speaker: Int

    public init(start: Double, end: Double, speaker: Int) {
        self.start = start
        self.end = end
        self.speaker = speaker
    }

    /// A pause longer than this ends a turn even when the same voice goes on: turns say where
    /// someone speaks, and talk time counts speech, not the silence of a long pause.
    public static let longestPauseInTurn = 1.0

    /// The turns of pieces labelled `speakers` (in time order): one per run of a speaker, cut at
    /// pauses longer than `longestPauseInTurn`.
    public static func turns(of pieces: [ClosedRange<Double>], speakers: [Int]) -> [SpeakerTurn] {
        var turns: [SpeakerTurn] = []
        for (piece, speaker) in zip(pieces, speakers).sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) {
            if let last = turns.last, last.speaker == speaker, piece.lowerBound - last.end <= longestPauseInTurn {
                turns[turns.count - 1].end = max(last.end, piece.upperBound)
            } else {
                if let last = turns.last, last.end > piece.lowerBound {
                    // Overlapping pieces of two chunks: the boundary falls between them.
                    let boundary = (last.end + piece.lowerBound) / 2
                    turns[turns.count - 1].end = boundary
                    turns.append(SpeakerTurn(start: boundary, end: piece.upperBound, speaker: speaker))
                } else {
                    turns.append(SpeakerTurn(start: piece.lowerBound, end: piece.upperBound, speaker: speaker))
                }
            }
        }
        return turns
    }

    /// The speaker at `time`: the turn holding it, else the nearest turn (a word in a pause, or
    /// in speech too short to measure, belongs to whoever spoke closest to it). Turns in order.
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
