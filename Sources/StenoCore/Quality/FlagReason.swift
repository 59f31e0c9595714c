/// Why the gates held back text the backend wrote (`chunks.flagged`, `segments.flag`).
public enum FlagReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The backend said so itself: Whisper's no-speech rule (`no_speech_prob` above 0.6 with
    /// an `avg_logprob` below -1).
    case noSpeech = "no_speech"
    /// Text stamped where the speech detector heard no voice, not even a second away.
    case outsideSpeech = "outside_speech"
    /// One of the phrases Whisper is known to invent ("Thank you for watching."), over too
    /// little speech to have been said.
    case knownHallucination = "known_hallucination"
    /// A loop: the same words over and over, or text that compresses like one.
    case repetition
    /// More characters than anyone speaks in the speech under it.
    case tooFast = "too_fast"

    /// For an operator reading `steno transcript --format json`.
    public var explanation: String {
        switch self {
        case .noSpeech: "the backend itself judged that no one speaks here (no_speech_prob above 0.6, avg_logprob below -1)"
        case .outsideSpeech: "no speech was detected within a second of this text"
        case .knownHallucination: "a phrase speech recognisers are known to invent, over too little speech to have been said"
        case .repetition: "a repetition loop: the same words again and again"
        case .tooFast: "more characters than anyone speaks in the speech under it"
        }
    }
}
