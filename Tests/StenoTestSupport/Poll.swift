import Foundation
public import Testing

/// Waits until `condition` holds, looking again every few milliseconds, for what a real server,
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

/// The first value `body` gives, looking again every few milliseconds, or nil when it gave none
/// within `limit`: for a caller that says itself what went wrong, with what it can read then.
public func polled<Value>(within limit: Duration = .seconds(60), _ body: () async throws -> Value?) async throws -> Value? {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = try await body() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try await Task.sleep(for: .milliseconds(5))
    }
}
