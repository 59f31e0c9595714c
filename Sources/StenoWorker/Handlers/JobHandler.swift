/// Runs one kind of job. Handlers complete the job themselves, in the transaction of their
/// last writes, and throw classified errors (`TranscriptionError`, `MediaError`, `WorkerError`,
/// `PostgresError`) that the runner turns into a retry, a failure or a cancel.
public protocol JobHandler: Sendable {
    func run(_ context: JobContext) async throws -> JobOutcome
}
