/// Why the worker stopped a running job from outside the handler.
enum StopReason: Sendable, Equatable {
    /// The job's cancel flag is set: it ends `cancelled`.
    case cancelRequested
    /// Another worker owns the job now: write nothing.
    case leaseLost
    /// The worker is shutting down past its grace period: hand the job back to the queue.
    case shutdown
}
