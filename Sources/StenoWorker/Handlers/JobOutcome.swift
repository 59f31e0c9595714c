public import StenoCore

/// How a handler ended a job that did not throw.
public enum JobOutcome: Sendable, Equatable {
    /// The handler's writes and the job's completion committed together.
    case completed
    /// The job's media or chapter is cancelled: the job ends `cancelled` without work (or with
    /// an answer it had to throw away, recorded with the attempt).
    case cancelled(reason: String, answerDiscarded: AnswerDisposal.DiscardReason? = nil)
}
