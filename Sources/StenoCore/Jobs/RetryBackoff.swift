import Foundation
import StenoInfrastructure

/// How long a job that failed transiently waits before it runs again.
///
/// Grows exponentially with the attempt (`base * 2^(attempt-1)`, capped), with +-`jitter` so that
/// jobs failed together by one outage do not all come back in the same second.
public struct RetryBackoff: Sendable, Equatable {
    public var base: Duration
    public var cap: Duration
    /// Fraction of the delay by which it may vary, 0...1.
    public var jitter: Double

    public init(base: Duration = .seconds(15), cap: Duration = .seconds(3600), jitter: Double = 0.1) {
        precondition(jitter >= 0 && jitter <= 1, "jitter is a fraction between 0 and 1")
        self.base = base
        self.cap = cap
        self.jitter = jitter
    }

    /// The delay after `attempt` (1-based) failed.
    public func delay<G: RandomNumberGenerator>(afterAttempt attempt: Int, using generator: inout G) -> Duration {
        let factor = jitter == 0 ? 1 : Double.random(in: (1 - jitter)...(1 + jitter), using: &generator)
        return Self.milliseconds(nominalSeconds(afterAttempt: attempt) * factor)
    }

    /// Every delay the jitter can give after `attempt` failed.
    public func range(afterAttempt attempt: Int) -> ClosedRange<Duration> {
        let nominal = nominalSeconds(afterAttempt: attempt)
        return Self.milliseconds(nominal * (1 - jitter))...Self.milliseconds(nominal * (1 + jitter))
    }

    private func nominalSeconds(afterAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 30)))
        return min(base.seconds * pow(2, exponent), cap.seconds)
    }

    private static func milliseconds(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }

    public func delay(afterAttempt attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, using: &generator)
    }
}
