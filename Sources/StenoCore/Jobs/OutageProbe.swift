/// How long a backend that is down is left alone before one chunk job probes it again: the
/// wait doubles after each failed probe, up to a cap, and an answer ends the outage.
public struct OutageProbe: Sendable, Equatable {
    public var initial: Duration
    public var cap: Duration

    public init(initial: Duration = .seconds(5), cap: Duration = .seconds(300)) {
        self.initial = initial
        self.cap = max(initial, cap)
    }

    /// The wait after a failed probe, given the wait before it (nil: the outage is new).
    public func next(after current: Duration?) -> Duration {
        guard let current else { return initial }
        return min(cap, max(initial, current * 2))
    }
}
