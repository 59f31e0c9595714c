import Foundation
import Testing

/// Waits until `condition` holds, looking again every few milliseconds, for what a real server,
/// process or database does in its own time; a test records an issue and goes on if it never
/// holds within `limit`, which is generous: it bounds a hang, it does not time anything.
///
/// The only waiting tests do on real time. Time the code under test keeps goes through a
/// `ManualClock` instead.
public func poll(
    until condition: () async throws -> Bool, within limit: Duration = .seconds(60),
    _ what: @autoclosure () -> String = "the condition", sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("\(what()) did not come within \(limit)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
