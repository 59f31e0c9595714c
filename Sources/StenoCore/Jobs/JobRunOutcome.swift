/// How one run of a job ended, as the worker's metrics count it (`outcome` label).
public enum JobRunOutcome: String, Sendable, CaseIterable {
    case succeeded
    case failed
    /// Failed for now; queued again for a later attempt.
    case retry
    case cancelled
    /// Handed back to the queue at shutdown without using an attempt.
    case released
    /// Back in the queue with its attempt given back: its backend is down.
    case postponed
    /// The lease was lost before the job's writes committed; they were rolled back.
    case leaseLost = "lease_lost"
}
