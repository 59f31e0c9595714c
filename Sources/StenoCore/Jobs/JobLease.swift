/// Proof that a worker holds a job: the job, the worker, and which attempt it runs.
///
/// Every write a worker makes to a running job matches all three, so a worker whose lease
/// expired (and whose job was rescued or claimed again) writes nothing.
public struct JobLease: Sendable, Hashable, CustomStringConvertible {
    public var jobID: Int64
    public var owner: String
    public var attempt: Int

    public init(jobID: Int64, owner: String, attempt: Int) {
        self.jobID = jobID
        self.owner = owner
        self.attempt = attempt
    }

    public var description: String { "job \(jobID) attempt \(attempt) held by \(owner)" }
}
