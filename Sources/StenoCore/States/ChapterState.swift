/// Where a chapter is on its way to a transcript (`chapters.state`).
public enum ChapterState: String, Sendable, CaseIterable, Codable {
    case queued
    /// Its chapter job is choosing the chunk boundaries.
    case planning
    /// Its chunks are being transcribed.
    case transcribing
    /// Every chunk succeeded; its merge job joins them.
    case merging
    case succeeded
    case failed
    case cancelled

    public var isFinished: Bool {
        switch self {
        case .queued, .planning, .transcribing, .merging: false
        case .succeeded, .failed, .cancelled: true
        }
    }
}
