/// Where a chunk is (`chunks.state`).
public enum ChunkState: String, Sendable, CaseIterable, Codable {
    case queued
    case running
    case succeeded
    case failed
    case cancelled
    /// Its encoding was over the upload limit: replaced by smaller chunks of the same audio.
    case split

    /// A chunk in these states has no more work; a chapter is done when each is `succeeded` or `split`.
    public var isFinished: Bool {
        switch self {
        case .queued, .running, .failed: false
        case .succeeded, .cancelled, .split: true
        }
    }

    /// Its audio is covered by a stored transcript (itself or the pieces it was split into).
    public var isCovered: Bool { self == .succeeded || self == .split }
}
