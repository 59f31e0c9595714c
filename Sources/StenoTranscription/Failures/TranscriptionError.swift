public import Foundation
public import StenoCore

/// A chunk could not be transcribed: a stable code, exactly one failure class, and the context
/// an operator needs.
///
/// `description` is safe to log, store and print: it never contains the API key or an extra
/// header's value, and anything the backend said has been redacted and shortened.
public struct TranscriptionError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public var description: String { rawValue }

        /// The backend answered with a failure status; `status` and `backendMessage` say more.
        public static let httpStatus = Code(rawValue: "http_status")
        /// No connection: refused, reset, DNS, TLS handshake.
        public static let connectionFailed = Code(rawValue: "connection_failed")
        /// The connection broke or the reply was not HTTP.
        public static let transferFailed = Code(rawValue: "transfer_failed")
        /// The connect or request time limit passed.
        public static let timedOut = Code(rawValue: "timed_out")
        /// The upload sent nothing for the stall limit.
        public static let stalled = Code(rawValue: "stalled")
        /// The attempt's time limit passed between requests.
        public static let attemptTimeLimit = Code(rawValue: "attempt_time_limit")
        /// A 2xx answer whose body is not a transcription.
        public static let malformedResponse = Code(rawValue: "malformed_response")
        /// The backend redirected; the base URL should name the final location.
        public static let redirected = Code(rawValue: "redirected")
        /// The configuration cannot be used (missing URL, unreadable key file, bad number).
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// The cancel signal, shutdown, or task cancellation.
        public static let cancelled = Code(rawValue: "cancelled")
        /// libcurl failed outside a transfer: a fault in Steno or its environment.
        public static let clientFailure = Code(rawValue: "client_failure")
    }

    public var code: Code
    public var failureClass: FailureClass
    /// Steno's own explanation, for a person.
    public var message: String
    /// The backend's name from its configuration.
    public var backend: String?
    public var status: Int?
    /// What the backend said, redacted and shortened.
    public var backendMessage: String?
    /// The backend's machine-readable error code, such as `rate_limit_exceeded`.
    public var backendCode: String?
    /// The backend's `x-request-id`, for its support.
    public var requestID: String?
    /// libcurl's result code for transport failures.
    public var curlCode: Int?
    /// When the backend asked to wait longer than the attempt can: retry the job at this time.
    public var retryAt: Date?
    /// HTTP requests made in this attempt, the failed one included.
    public var requests: Int
    /// How long the backend asked to wait (`Retry-After`, `retry-after-ms`); used for the next retry.
    public var retryAfter: Duration?
    /// Set when the backend sent `x-should-retry: false` on an otherwise retryable failure.
    var retryForbiddenByBackend = false

    public init(
        _ code: Code, _ failureClass: FailureClass, _ message: String, backend: String? = nil, status: Int? = nil,
        backendMessage: String? = nil, backendCode: String? = nil, requestID: String? = nil, curlCode: Int? = nil,
        retryAt: Date? = nil, requests: Int = 0, retryAfter: Duration? = nil
    ) {
        self.code = code
        self.failureClass = failureClass
        self.message = message
        self.backend = backend
        self.status = status
        self.backendMessage = backendMessage
        self.backendCode = backendCode
        self.requestID = requestID
        self.curlCode = curlCode
        self.retryAt = retryAt
        self.requests = requests
        self.retryAfter = retryAfter
    }

    public var description: String {
        var text = "transcription \(failureClass.rawValue) failure (\(code))"
        if let backend { text += " from backend \(backend)" }
        text += ": \(message)"
        if let status { text += " [HTTP \(status)]" }
        if let backendMessage { text += " backend said: \(backendMessage)" }
        if let backendCode { text += " (code \(backendCode))" }
        if let requestID { text += " (request id \(requestID))" }
        if let retryAt { text += " (retry at \(ISO8601DateFormatter().string(from: retryAt)))" }
        if requests > 1 { text += " after \(requests) requests" }
        return text
    }
}
