public import Foundation

/// A job to enqueue.
public struct NewJob: Sendable, Equatable {
    public var kind: JobKind
    public var priority: JobPriority
    /// Not claimed before this time; `nil` means now, on the database's clock.
    public var runAt: Date?
    public var maxAttempts: Int
    public var mediaID: Int64?
    public var chapterID: Int64?
    public var chunkID: Int64?

    public static let defaultMaxAttempts = 5

    public init(
        kind: JobKind, priority: JobPriority = .low, runAt: Date? = nil,
        maxAttempts: Int = NewJob.defaultMaxAttempts,
        mediaID: Int64? = nil, chapterID: Int64? = nil, chunkID: Int64? = nil
    ) {
        self.kind = kind
        self.priority = priority
        self.runAt = runAt
        self.maxAttempts = maxAttempts
        self.mediaID = mediaID
        self.chapterID = chapterID
        self.chunkID = chunkID
    }
}
