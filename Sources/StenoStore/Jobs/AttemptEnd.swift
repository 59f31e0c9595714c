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
    /// Handed back at shutdown: queued again at once, the attempt given back.
    case released
    /// Taken back from a worker that stopped renewing its lease (`JobStore.rescueExpired`):
    /// like a failed attempt, queued again, failed once out of attempts, or cancelled.
    case leaseExpired
    /// Taken back at once because the process of the worker running it died (`JobStore.rescue`):
    /// queued again with the attempt given back, to run alone after `RescuePolicy.aloneAfter`
    /// such rescues, failed once they reach `budget`, cancelled when its flag was set.
    case workerDied(budget: Int)

    /// The failure recorded on the job and its attempt.
    var failure: JobStore.Failure? {
        switch self {
        case .succeeded, .released, .leaseExpired: nil
        case .failed(let failure), .retry(_, let failure), .postponed(_, let failure): failure
        case .cancelled(let message, _): JobStore.Failure(.cancelled, message)
        case .workerDied(let budget):
            JobStore.Failure(
                .lostLease,
                "the job was running each of the \(budget) times its worker's process died (alone, with no other job beside it, the last "
                    + "times): it may be what crashes the worker; see the worker's log, then `steno retry` runs it again")
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
        case .postponed, .released: "CASE WHEN j.cancel_requested THEN \(literal: JobState.cancelled) ELSE \(literal: JobState.queued) END"
        case .workerDied(let budget):
            """
            CASE WHEN j.cancel_requested THEN \(literal: JobState.cancelled) WHEN j.crash_rescues + 1 >= \(budget) THEN \(literal: JobState.failed)
                 ELSE \(literal: JobState.queued) END
            """
        }
    }

    /// When the job may run again: a SQL expression, used only when it is queued again.
    func runAt(now: PostgresQuery) -> PostgresQuery {
        switch self {
        case .retry(let delay, _): "\(now) + make_interval(secs => \(delay.seconds)::float8)"
        case .postponed(let until, _): "\(until)::timestamptz"
        default: now
        }
    }

    /// Whether the attempt may have a row already (see `JobStore.overOlderRow`).
    var recordsOverOlderRows: Bool { self == .leaseExpired }

    /// Attempt numbers only grow (they fence stale writers), so a try is given back by allowing one more.
    var givesAttemptBack: Bool {
        switch self {
        case .postponed, .released, .workerDied: true
        default: false
        }
    }

    /// Columns only some ends set, after the others in the `SET` list: a SQL fragment.
    var moreAssignments: PostgresQuery {
        switch self {
        case .workerDied:
            ", crash_rescues = j.crash_rescues + 1, runs_alone = j.runs_alone OR j.crash_rescues + 1 >= \(RescuePolicy.aloneAfter)"
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
        case .postponed, .released: "\(literal: JobAttempt.Outcome.released)"
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
        case .workerDied:
            "CASE WHEN \(nextState) = \(literal: JobState.failed) THEN \(failure?.message) ELSE 'the process of worker ' || held.owner || ' died while running it' END"
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
        case .workerDied: "the worker's process died (its database session ended); taken back at once"
        default: failure?.message
        }
    }
}
