/// Moves word times the backend stamped where no one speaks onto the speech they belong to.
///
/// Whisper stretches and shifts word times over music and silence: a sentence spoken right
/// after a music bed is often stamped inside the bed. A word that overlaps no detected speech is
/// moved to the nearest edge of where the nearest stretch of speech may be (below), keeping its
/// length where that stretch allows; a word that reaches far out of speech (the first word of a sentence after
/// music, stretched back into it) is cut back. The detector hears a voice start late (up to a
/// second after music), so a word may begin up to `onsetLag` before the speech it touches and
/// end up to `offsetLag` after it: the backend heard those sounds, the detector had not yet.
/// 0.5 s on the bench episodes: at 0.8 s a first word the backend stretched back into applause
/// stayed 0.29 s in it; moved to the detected start, a sentence after music began 1.02 s late.
/// The words' order is kept.
public enum SpeechSnap {
    public static let onsetLag = 0.5
    public static let offsetLag = 0.2

    public static func words(_ words: [TimedWord], onto speech: [ClosedRange<Double>]) -> [TimedWord] {
        guard !speech.isEmpty else { return words }
        let regions = speech.sorted { $0.lowerBound < $1.lowerBound }
        let heard = regions.map { ($0.lowerBound - onsetLag)...($0.upperBound + offsetLag) }
        var snapped: [TimedWord] = []
        snapped.reserveCapacity(words.count)
        var earliest = -Double.infinity
        for var word in words {
            let start = word.start
            let end = max(word.start, word.end)
            let touched = heard.filter { $0.lowerBound <= end && start <= $0.upperBound }
            if let first = touched.first, let last = touched.last {
                word.start = max(start, first.lowerBound)
                word.end = min(end, last.upperBound)
            } else if let nearest = heard.min(by: { distance(start...end, $0) < distance(start...end, $1) }) {
                // To the edge of where the voice may be: a backend that stamps the first word at
                // the start of the chunk is often closer to it than the late detector.
                let length = min(end - start, nearest.upperBound - nearest.lowerBound)
                if nearest.lowerBound > end {
                    word.start = nearest.lowerBound
                    word.end = nearest.lowerBound + length
                } else {
                    word.end = nearest.upperBound
                    word.start = nearest.upperBound - length
                }
            }
            // Order is kept: a word is never moved before the one before it.
            word.start = max(word.start, earliest)
            word.end = max(word.end, word.start)
            earliest = word.start
            snapped.append(word)
        }
        return snapped
    }

    static func distance(_ range: ClosedRange<Double>, _ region: ClosedRange<Double>) -> Double {
        if region.lowerBound > range.upperBound { return region.lowerBound - range.upperBound }
        if region.upperBound < range.lowerBound { return range.lowerBound - region.upperBound }
        return 0
    }
}
