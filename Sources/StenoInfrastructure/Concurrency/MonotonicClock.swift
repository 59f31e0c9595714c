public import Foundation

/// The clock every wait and every "now" of Steno's runtime goes through: the continuous clock
/// in production, a manual clock in tests.
///
/// A `Clock` whose instants are `ContinuousClock`'s, so that deadlines, leases and backoffs are
/// plain instants and durations whichever clock made them, and a component can hold
/// `any MonotonicClock` without becoming generic over it. `date` is the wall time that goes
/// with `now` (for a `Retry-After` that names a date, a time written to a row): it advances
/// with the clock, so a test that moves the clock moves both.
public protocol MonotonicClock: Clock, Sendable where Instant == ContinuousClock.Instant, Duration == Swift.Duration {
    /// The wall time now.
    var date: Date { get }
}

extension ContinuousClock: MonotonicClock {
    public var date: Date { Date() }
}

extension MonotonicClock where Self == ContinuousClock {
    /// The clock of production: `ContinuousClock`, and the system's wall time.
    public static var continuous: ContinuousClock { ContinuousClock() }
}
