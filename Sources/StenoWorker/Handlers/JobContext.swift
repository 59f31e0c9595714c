public import Logging
public import StenoCore
public import StenoInfrastructure

/// One claimed job as a handler sees it: the job, its fencing lease, the signal that stops it
/// (cancel flag, lost lease, shutdown) and a logger carrying its ids.
public struct JobContext: Sendable {
    public var job: Job
    public var lease: JobLease
    public var cancellation: CancellationSignal
    public var logger: Logger
    /// Held while an answer in hand is stored, so that a lost lease does not stop that write.
    public var answerHold: AnswerHold
    /// Withholds uploads on a lease the heartbeat could not renew; nil outside a worker.
    var leaseWatch: LeaseWatch?
    /// The worker's clock: the job's waits (for a held answer, for the database) go by it.
    public var clock: any MonotonicClock

    public init(
        job: Job, lease: JobLease, cancellation: CancellationSignal, logger: Logger, answerHold: AnswerHold = AnswerHold(),
        clock: any MonotonicClock = .continuous
    ) {
        self.answerHold = answerHold
        self.clock = clock
        self.job = job
        self.lease = lease
        self.cancellation = cancellation
        self.logger = logger
    }

    /// The id the job's kind needs, or a `malformedJob` error naming it.
    func required(_ id: Int64?, _ name: String) throws(WorkerError) -> Int64 {
        guard let id else {
            throw WorkerError(.malformedJob, .permanent, "a \(job.kind.rawValue) job needs a \(name)", jobID: job.id)
        }
        return id
    }

    /// Throws `cancelled` when the job was told to stop, so that no further request starts.
    func checkCancellation() throws(WorkerError) {
        if cancellation.isCancelled {
            throw WorkerError(.stopped, .cancelled, "the job was stopped", jobID: job.id)
        }
    }
}
