public import StenoCore

extension JobStore {
    /// Why an attempt ended, as recorded on the job and in `job_attempts`.
    public struct Failure: Sendable, Equatable {
        public var errorClass: FailureClass
        public var message: String
        public var httpStatus: Int?

        public init(_ errorClass: FailureClass, _ message: String, httpStatus: Int? = nil) {
            self.errorClass = errorClass
            self.message = message
            self.httpStatus = httpStatus
        }
    }
}
