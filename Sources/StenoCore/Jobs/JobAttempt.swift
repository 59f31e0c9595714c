public import Foundation

/// One row of `job_attempts`: the history that SQL reports read.
public struct JobAttempt: Sendable, Equatable {
    public enum Outcome: String, Sendable, CaseIterable, Codable {
        case succeeded
        case failed
        /// Failed transiently; the job went back to the queue.
        case retry
        case cancelled
        /// The worker stopped heartbeating; another worker rescued the job.
        case leaseExpired = "lease_expired"
        /// Handed back unfinished at shutdown; not counted against the job's attempts.
        case released
        /// Its worker's process died (its database session ended); another worker took the job
        /// back at once. Not counted against the job's attempts: crash rescues have a budget of
        /// their own (`RescuePolicy.crashBudget`).
        case workerDied = "worker_died"
    }

    public var jobID: Int64
    public var attempt: Int
    public var worker: String
    public var startedAt: Date
    public var finishedAt: Date?
    /// `nil` while the attempt runs.
    public var outcome: Outcome?
    public var errorClass: FailureClass?
    public var httpStatus: Int?
    public var message: String?

    public init(
        jobID: Int64, attempt: Int, worker: String, startedAt: Date, finishedAt: Date?,
        outcome: Outcome?, errorClass: FailureClass?, httpStatus: Int?, message: String?
    ) {
        self.jobID = jobID
        self.attempt = attempt
        self.worker = worker
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.errorClass = errorClass
        self.httpStatus = httpStatus
        self.message = message
    }
}
