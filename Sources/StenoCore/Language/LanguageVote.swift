/// Settles a media's language from the languages its chunks' answers came back in.
///
/// A backend that is not told the language detects it from each chunk's own audio, and a short
/// or noisy chunk can come back in another one (or translated into it). The media's language is
/// therefore not the first answer's but the one most of its speech agrees on: once one language
/// holds `settleSeconds` of answered audio and at least `share` of all of it, or when every chunk
/// has been answered and one language holds the most. From then on every chunk is asked in it.
///
/// 30 s is what Whisper itself reads to detect a language (its first window), here summed over
/// answers that each had their own chance to be wrong; two thirds keeps a media whose first
/// minutes are split between two languages unsettled until more of it is heard.
public struct LanguageVote: Sendable, Equatable {
    public var settleSeconds: Double
    public var share: Double

    public init(settleSeconds: Double = 30, share: Double = 2.0 / 3.0) {
        self.settleSeconds = settleSeconds
        self.share = share
    }

    /// The settled language, or nil while the answers so far do not settle one.
    /// - Parameters:
    ///   - seconds: audio seconds answered in each language (ISO 639-1 codes).
    ///   - complete: every chunk of the media has been answered.
    public func settled(_ seconds: [String: Double], complete: Bool) -> String? {
        let total = seconds.values.reduce(0, +)
        guard total > 0 else { return nil }
        let ranked = seconds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let (leader, held) = ranked[0]
        if held >= settleSeconds && held >= share * total { return leader }
        // At the end, the most-heard language wins, unless two are heard exactly as much.
        if complete, ranked.count == 1 || ranked[1].value < held { return leader }
        return nil
    }
}
