public import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

/// How a running job's attempt ends: each case is one transition of the job, written once in
/// `JobStore.end(_:as:on:)` for every caller, with the one `job_attempts` row that records it.
public enum AttemptEnd: Sendable, Equatable {
    /// The work is done.
    case succeeded(answerDiscarded: AnswerDisposal.DiscardReason? = nil)
    /// Failed for good: no further attempt.
    case failed(JobStore.Failure)
    /// Stopped because its cancel flag was set, or its chunk, chapter or media was cancelled.
    case cancelled(message: String, answerDiscarded: AnswerDisposal.DiscardReason? = nil)
    /// Failed this time: queued again after `delay`, failed once out of attempts, cancelled
    /// when its flag was set meanwhile.
    case retry(after: Duration, JobStore.Failure)
    /// Not the job's fault (its backend is down): queued again until `runAt`, the attempt given back.
    case postponed(until: Date, JobStore.Failure)
    /// Not the job's fault (the object store with its recording does not answer): queued again
    /// after `after`, from the statement's "now", the attempt given back.
    case waiting(after: Duration, JobStore.Failure)
    /// Handed back at shutdown: queued again at once, the attempt given back.
    case released
    /// Taken back from a worker that stopped renewing its lease (`JobStore.rescueExpired`):
    /// like a failed attempt, queued again, failed once out of attempts, or cancelled.
    case leaseExpired
    /// Taken back at once because the process of the worker running it died (`JobStore.rescues`,
    /// `WorkStore.rescueProcessDeath`), ended as `exit` says (nil: nobody saw how): queued again
    /// with the attempt given back, quarantined or failed as the verdict on the evidence says
    /// (`DeathVerdict`), cancelled when its flag was set.
    case workerDied(DeathVerdict, exit: WorkerExit?)

    /// The failure recorded on the job and its attempt.
    var failure: JobStore.Failure? {
        switch self {
        case .succeeded, .released, .leaseExpired: nil
        case .failed(let failure), .retry(_, let failure), .postponed(_, let failure), .waiting(_, let failure): failure
        case .cancelled(let message, _): JobStore.Failure(.cancelled, message)
        case .workerDied(.fail(let reason), _): JobStore.Failure(.lostLease, reason)
        case .workerDied(.quarantine(_, let reason), _): JobStore.Failure(.lostLease, reason)
        case .workerDied(.requeue, let exit): JobStore.Failure(.lostLease, "its worker's process died (\(exit.map { "\($0)" } ?? "unseen")) while running it")
        }
    }

    var answerDiscarded: AnswerDisposal.DiscardReason? {
        switch self {
        case .succeeded(let reason), .cancelled(_, let reason): reason
        default: nil
        }
    }

    /// The job's next state, from its row (`j`): a SQL expression.
    var nextState: PostgresQuery {
        switch self {
        case .succeeded: "\(literal: JobState.succeeded)"
        case .failed: "\(literal: JobState.failed)"
        case .cancelled: "\(literal: JobState.cancelled)"
        case .retry, .leaseExpired: JobStore.stateAfterFailedAttempt
        case .postponed, .waiting, .released: "CASE WHEN j.cancel_requested THEN \(literal: JobState.cancelled) ELSE \(literal: JobState.queued) END"
        case .workerDied(.fail, _):
            "CASE WHEN j.cancel_requested THEN \(literal: JobState.cancelled) ELSE \(literal: JobState.failed) END"
        case .workerDied:
            "CASE WHEN j.cancel_requested THEN \(literal: JobState.cancelled) ELSE \(literal: JobState.queued) END"
        }
    }

    /// When the job may run again: a SQL expression, used only when it is queued again.
    func runAt(now: PostgresQuery) -> PostgresQuery {
        switch self {
        case .retry(let delay, _): "\(now) + make_interval(secs => \(delay.seconds)::float8)"
        case .postponed(let until, _): "\(until)::timestamptz"
        case .waiting(let after, _): "\(now) + make_interval(secs => \(after.seconds)::float8)"
        case .workerDied(.quarantine(let after, _), _): "\(now) + make_interval(secs => \(after.seconds)::float8)"
        default: now
        }
    }

    /// Whether the attempt may have a row already (see `JobStore.overOlderRow`).
    var recordsOverOlderRows: Bool { self == .leaseExpired }

    /// Attempt numbers only grow (they fence stale writers), so a try is given back by allowing one more.
    var givesAttemptBack: Bool {
        switch self {
        case .postponed, .waiting, .released, .workerDied: true
        default: false
        }
    }

    /// Columns only some ends set, after the others in the `SET` list: a SQL fragment.
    var moreAssignments: PostgresQuery {
        switch self {
        case .workerDied(.quarantine, _): ", crash_rescues = j.crash_rescues + 1, runs_alone = true"
        case .workerDied: ", crash_rescues = j.crash_rescues + 1"
        default: ""
        }
    }

    /// The `job_attempts.outcome` for the job's new state (`e.state`): a SQL expression.
    var outcome: PostgresQuery {
        switch self {
        case .succeeded: "\(literal: JobAttempt.Outcome.succeeded)"
        case .failed: "\(literal: JobAttempt.Outcome.failed)"
        case .cancelled: "\(literal: JobAttempt.Outcome.cancelled)"
        case .retry:
            """
            CASE e.state WHEN \(literal: JobState.queued) THEN \(literal: JobAttempt.Outcome.retry)
                         WHEN \(literal: JobState.cancelled) THEN \(literal: JobAttempt.Outcome.cancelled)
                         ELSE \(literal: JobAttempt.Outcome.failed) END
            """
        case .postponed, .waiting, .released: "\(literal: JobAttempt.Outcome.released)"
        case .leaseExpired: "\(literal: JobAttempt.Outcome.leaseExpired)"
        case .workerDied: "\(literal: JobAttempt.Outcome.workerDied)"
        }
    }

    /// `jobs.error_class` after the transition (`j`, `held`): a SQL expression.
    var jobErrorClass: PostgresQuery {
        switch self {
        case .succeeded: "NULL"
        case .released: "j.error_class"
        case .leaseExpired, .workerDied: "\(literal: FailureClass.lostLease)"
        default: "\(failure?.errorClass)"
        }
    }

    /// `jobs.error_message` after the transition (`j`, `held`): a SQL expression.
    var jobErrorMessage: PostgresQuery {
        switch self {
        case .succeeded: "NULL"
        case .released: "j.error_message"
        case .leaseExpired: "'worker ' || held.owner || ' stopped renewing its lease'"
        case .workerDied(.requeue, let exit):
            "'the process of worker ' || held.owner || ' died (' || \(exit.map { "\($0)" } ?? "unseen")::text || ') while running it'"
        default: "\(failure?.message)"
        }
    }

    /// `job_attempts.error_class`: a SQL expression.
    var attemptErrorClass: PostgresQuery {
        switch self {
        case .leaseExpired, .workerDied: "\(literal: FailureClass.lostLease)"
        default: "\(failure?.errorClass)"
        }
    }

    /// What `job_attempts.message` says.
    var attemptMessage: String? {
        switch self {
        case .released: "handed back at worker shutdown"
        case .leaseExpired: "lease expired without a heartbeat"
        case .workerDied(_, let exit?): "the worker's process ended (\(exit)); its supervisor took it back"
        case .workerDied: "the worker's process died (its database session ended); taken back at once"
        default: failure?.message
        }
    }

    /// `job_attempts.worker_exit`: how the worker's process ended, when it died and someone saw it.
    var workerExit: String? {
        if case .workerDied(_, let exit?) = self { "\(exit)" } else { nil }
    }

    /// `job_attempts.crashed`: the death is evidence against the job.
    var crashed: Bool {
        if case .workerDied(_, let exit?) = self { exit.isCrash } else { false }
    }
}
