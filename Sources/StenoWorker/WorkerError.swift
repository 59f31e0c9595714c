public import StenoCore

/// A failure of the worker itself, with the class that decides what happens to the job.
///
/// The description is safe to log: it holds ids and plain reasons, never a secret.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }

        /// The row a job names is gone (deleted meanwhile).
        public static let missingRow = Code(rawValue: "missing_row")
        /// The job was told to stop (a cancel, a shutdown, a lost lease); why it stopped decides
        /// what happens to it. A lost lease met by a write is the store's `StoreError.leaseLost`.
        public static let stopped = Code(rawValue: "stopped")
        /// The media's chapter selection names no chapter the file has.
        public static let noSelectedChapter = Code(rawValue: "no_selected_chapter")
        /// A setting is missing or malformed.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// A stored value cannot be read back (a jsonb column of another shape).
        public static let malformedRow = Code(rawValue: "malformed_row")
        /// A job lacks the ids its kind needs.
        public static let malformedJob = Code(rawValue: "malformed_job")
        /// The database has no Steno schema: `steno migrate` has not run.
        public static let schemaMissing = Code(rawValue: "schema_missing")
    }

    public var code: Code
    public var failureClass: FailureClass
    public var message: String
    /// The job being run, for context.
    public var jobID: Int64?

    public init(_ code: Code, _ failureClass: FailureClass, _ message: String, jobID: Int64? = nil) {
        self.code = code
        self.failureClass = failureClass
        self.message = message
        self.jobID = jobID
    }

    public var description: String {
        var text = "worker \(code) (\(failureClass.rawValue)): \(message)"
        if let jobID { text += " [job \(jobID)]" }
        return text
    }
}
