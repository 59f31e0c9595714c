/// How a handler ended a job that did not throw.
public enum JobOutcome: Sendable, Equatable {
    /// The handler's writes and the job's completion committed together.
    case completed
    /// The job's media or chapter is cancelled: the job ends `cancelled` without work.
    case cancelled(reason: String)
}
