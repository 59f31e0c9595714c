import Foundation
public import Testing

/// Waits until `condition` holds, looking again as `polled` does, for what a real server,
/// process or database does in its own time; a test records an issue and goes on if it never
/// holds within `limit`, which is generous: it bounds a hang, it does not time anything.
///
/// With `polled(within:_:)`, the only waiting tests do on real time. Time the code under test
/// keeps goes through a `ManualClock` instead.
public func poll(
    until condition: () async throws -> Bool, within limit: Duration = .seconds(60),
    _ what: @autoclosure () -> String = "the condition", sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let held = try await polled(within: limit) { try await condition() ? true : nil }
    if held == nil {
        Issue.record("\(what()) did not come within \(limit)", sourceLocation: sourceLocation)
    }
}

/// The first value `body` gives, or nil when it gave none within `limit`: for a caller that says
/// itself what went wrong, with what it can read then. It looks again after 5 ms, then less
/// often, up to every 100 ms: a condition that comes soon is seen soon, and a long wait does not
/// load the database it reads with hundreds of statements a second beside the code under test.
public func polled<Value>(within limit: Duration = .seconds(60), _ body: () async throws -> Value?) async throws -> Value? {
    let deadline = ContinuousClock.now + limit
    var pause = Duration.milliseconds(5)
    while true {
        if let value = try await body() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(100))
    }
}
