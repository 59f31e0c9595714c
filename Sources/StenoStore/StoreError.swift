public import StenoCore

/// A write the store refused to make, or a row it cannot read back.
///
/// The description is safe to log: it holds ids and plain reasons, never a row's contents.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }

        /// The job's lease was lost before the writes committed; they were rolled back.
        public static let leaseLost = Code(rawValue: "lease_lost")
        /// A stored value cannot be read back (a jsonb column of another shape).
        public static let malformedRow = Code(rawValue: "malformed_row")
    }

    public var code: Code
    public var message: String
    /// The job concerned, for context.
    public var jobID: Int64?

    public init(_ code: Code, _ message: String, jobID: Int64? = nil) {
        self.code = code
        self.message = message
        self.jobID = jobID
    }

    /// What the failure means for the job that met it.
    public var failureClass: FailureClass {
        switch code {
        case .leaseLost: .lostLease
        default: .internal
        }
    }

    public var description: String {
        var text = "store \(code): \(message)"
        if let jobID { text += " [job \(jobID)]" }
        return text
    }
}
