import Foundation
public import StenoInfrastructure
public import StenoPostgres

/// What "now" is in the queue's statements: PostgreSQL's `now()`, the one clock a fleet of
/// machines shares, or a time the caller gives, as River's claim takes `now` as a parameter.
///
/// Tests give a `ManualClock`'s wall time, so that a lease expires, a retry falls due or a
/// worker's heartbeat grows old when the test moves the clock, not after real seconds.
public struct StatementTime: Sendable {
    private let given: (@Sendable () -> Date)?

    private init(given: (@Sendable () -> Date)?) {
        self.given = given
    }

    /// PostgreSQL's `now()`: production's.
    public static let database = StatementTime(given: nil)

    /// The wall time of `clock` whenever a statement runs.
    public static func given(by clock: any MonotonicClock) -> StatementTime {
        StatementTime(given: { clock.date })
    }

    /// The SQL for now: `now()` (the transaction's start), or the given time bound as a parameter.
    public var now: PostgresQuery {
        guard let given else { return "now()" }
        return "\(given())::timestamptz"
    }

    /// The SQL for the moment the statement reads it: `clock_timestamp()`, for a decision made
    /// after waiting for a lock, or the given time bound as a parameter.
    public var current: PostgresQuery {
        guard let given else { return "clock_timestamp()" }
        return "\(given())::timestamptz"
    }
}
