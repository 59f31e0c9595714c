import StenoStore

/// What asking a backend cost: the seconds it bills and the money it said, summed over asks.
/// The one place that says what an ask costs: the backend's usage where it said, else the audio
/// sent (at the upload's speed).
struct AnswerCost: Sendable, Equatable {
    var seconds: Double
    var usd: Double?

    init(seconds: Double, usd: Double?) {
        self.seconds = seconds
        self.usd = usd
    }

    /// One ask's cost: `usage` billed seconds where the backend said, else `audioSeconds` of
    /// audio sent at `speedup`.
    init(usage: Double?, usd: Double?, audioSeconds: Double, speedup: Double) {
        self.init(seconds: usage ?? audioSeconds / speedup, usd: usd)
    }

    /// What `answer` says it cost, for `audioSeconds` of audio sent at `speedup`.
    init(of answer: WorkStore.StoredTranscription, audioSeconds: Double, speedup: Double) {
        self.init(usage: answer.usageSeconds, usd: answer.costUSD, audioSeconds: audioSeconds, speedup: speedup)
    }

    static func + (left: AnswerCost, right: AnswerCost) -> AnswerCost {
        AnswerCost(seconds: left.seconds + right.seconds, usd: left.usd == nil && right.usd == nil ? nil : (left.usd ?? 0) + (right.usd ?? 0))
    }

    /// Written into an answer as its usage and cost.
    func charged(to answer: inout WorkStore.StoredTranscription) {
        answer.usageSeconds = seconds
        answer.costUSD = usd
    }
}
