public import Foundation

/// One row of the `jobs` table as the job store returns it.
public struct Job: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var kind: JobKind
    public var state: JobState
    public var priority: JobPriority
    public var runAt: Date
    /// Attempts started so far; the running attempt included.
    public var attempt: Int
    public var maxAttempts: Int
    public var mediaID: Int64?
    public var chapterID: Int64?
    public var chunkID: Int64?
    public var leaseOwner: String?
    public var leaseExpiresAt: Date?
    public var cancelRequested: Bool
    public var errorClass: FailureClass?
    public var errorMessage: String?
    public var createdAt: Date
    /// Times the job was taken back because the worker running it died.
    public var crashRescues: Int
    /// Run only by a worker that runs nothing else: it was running when its worker died twice.
    public var runsAlone: Bool

    public init(
        id: Int64, kind: JobKind, state: JobState, priority: JobPriority, runAt: Date,
        attempt: Int, maxAttempts: Int, mediaID: Int64?, chapterID: Int64?, chunkID: Int64?,
        leaseOwner: String?, leaseExpiresAt: Date?, cancelRequested: Bool,
        errorClass: FailureClass?, errorMessage: String?, createdAt: Date, crashRescues: Int = 0, runsAlone: Bool = false
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.priority = priority
        self.runAt = runAt
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.mediaID = mediaID
        self.chapterID = chapterID
        self.chunkID = chunkID
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.cancelRequested = cancelRequested
        self.errorClass = errorClass
        self.errorMessage = errorMessage
        self.createdAt = createdAt
        self.crashRescues = crashRescues
        self.runsAlone = runsAlone
    }

    /// The fencing token of a running job: only the holder of this lease may finish it.
    public var lease: JobLease? {
        guard state == .running, let leaseOwner else { return nil }
        return JobLease(jobID: id, owner: leaseOwner, attempt: attempt)
    }
}
