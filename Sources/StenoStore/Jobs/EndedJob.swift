public import Foundation
public import StenoCore

/// A job whose attempt just ended, as the transition left it: what its chunk, chapter and media
/// must follow.
public struct EndedJob: Sendable, Equatable {
    public var id: Int64
    public var kind: JobKind
    /// `queued` to run again, or how it ended.
    public var state: JobState
    public var attempt: Int
    /// The worker whose attempt ended.
    public var worker: String
    public var runAt: Date
    public var mediaID: Int64?
    public var chapterID: Int64?
    public var chunkID: Int64?

    public var lease: JobLease { JobLease(jobID: id, owner: worker, attempt: attempt) }
}
