/// How many requests may be in flight towards one backend: additive increase, multiplicative
/// decrease, as TCP does. Every answer adds `1 / limit` (about one more request per round of
/// answers); every request that timed out halves the limit. A slow backend so sees fewer resends
/// as it slows, instead of the same number again.
public struct AIMDWindow: Sendable, Equatable {
    public private(set) var limit: Double
    public let maximum: Double
    public let minimum: Double

    public init(maximum: Int, minimum: Int = 1) {
        self.maximum = Double(max(1, maximum))
        self.minimum = Double(min(max(1, minimum), max(1, maximum)))
        limit = self.maximum
    }

    /// Requests allowed in flight now.
    public var permits: Int { Int(limit.rounded(.down)) }

    public mutating func answered() {
        limit = min(maximum, limit + 1 / limit)
    }

    public mutating func timedOut() {
        limit = max(minimum, limit / 2)
    }
}
