/// `queued -> running -> succeeded | failed | cancelled`, and `running -> queued` for a retry.
public enum JobState: String, Sendable, CaseIterable, Codable {
    case queued
    case running
    case succeeded
    case failed
    case cancelled

    /// A finished job never runs again unless an operator retries it.
    public var isFinished: Bool {
        switch self {
        case .queued, .running: false
        case .succeeded, .failed, .cancelled: true
        }
    }
}
