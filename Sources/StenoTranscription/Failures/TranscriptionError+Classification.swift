import CCurl
import Foundation
import StenoCore
import StenoInfrastructure

extension TranscriptionError {
    /// The one failure class of a non-2xx answer (docs/architecture.md, "Failures"), with the backend's own
    /// message. `x-should-retry` overrides the status, as OpenAI's clients let it.
    /// `now` is when the answer came, for a `Retry-After` that names a date.
    static func classify(_ response: HTTPResponse, backend: String, redactor: SecretRedactor, now: Date) -> TranscriptionError {
        let body = BackendErrorBody(response.body)
        let (failureClass, code, message) = classification(of: response, body: body, redactor: redactor)
        var error = TranscriptionError(
            code, failureClass, message, backend: backend, status: response.status,
            backendMessage: body.message.map(redactor.redact), backendCode: body.code.map(redactor.redact),
            requestID: response.header("x-request-id").map(redactor.redact),
            retryAfter: RetryAfter.delay(in: response, now: now))

        switch response.header("x-should-retry")?.lowercased() {
        case "true":
            error.failureClass = .transient
        case "false" where failureClass == .transient:
            error.failureClass = .permanent
            error.retryForbiddenByBackend = true
            error.message += " (the backend said not to retry)"
        default:
            break
        }
        return error
    }

    private static func classification(
        of response: HTTPResponse, body: BackendErrorBody, redactor: SecretRedactor
    ) -> (FailureClass, Code, String) {
        switch response.status {
        case 300..<400:
            let location = response.header("location").map { " to \(redactor.redact($0))" } ?? ""
            return (.configuration, .redirected, "the backend redirected\(location); set the base URL to the final location")
        case 401:
            return (.configuration, .httpStatus, "the backend rejected the credentials; check the API key")
        case 403:
            return (.configuration, .httpStatus, "the backend refused access (organisation, project, region or IP allow-list)")
        case 408:
            return (.transient, .httpStatus, "the backend timed out waiting for the request")
        case 409:
            return (.transient, .httpStatus, "the backend reported a conflict")
        case 413:
            return (.tooLarge, .httpStatus, "the chunk is larger than the backend accepts; split it")
        case 429 where body.code == "insufficient_quota" || body.type == "insufficient_quota":
            return (.configuration, .httpStatus, "the backend account has no quota left")
        case 429:
            return (.transient, .httpStatus, "the backend is rate limiting requests")
        case 404:
            return (.permanent, .httpStatus, "the backend does not know the model or the path")
        case 400..<500:
            return (.permanent, .httpStatus, "the backend rejected the request")
        case 500..<600:
            return (.transient, .httpStatus, "the backend failed with a server error")
        default:
            return (.transient, .httpStatus, "the backend answered with an unexpected status")
        }
    }

    /// The one failure class of a transfer that ended without an answer.
    static func classify(_ failure: TransportFailure, backend: String, redactor: SecretRedactor) -> TranscriptionError {
        switch failure {
        case .cancelled:
            return TranscriptionError(.cancelled, .cancelled, "the request was cancelled", backend: backend)
        case .stalled(let limit):
            return TranscriptionError(
                .stalled, .transient, "the upload made no progress for \(limit.formatted)", backend: backend)
        case .responseTooLarge(let limit):
            return TranscriptionError(
                .malformedResponse, .transient, "the response was larger than \(limit) bytes", backend: backend)
        case .setup(let error):
            return TranscriptionError(.clientFailure, .internal, error.description, backend: backend)
        case .curl(let code, let curlMessage):
            let (failureClass, errorCode, summary) = classification(ofCurlCode: code)
            return TranscriptionError(
                errorCode, failureClass, "\(summary): \(redactor.redact(curlMessage))", backend: backend, curlCode: code)
        }
    }

    private static func classification(ofCurlCode code: Int) -> (FailureClass, Code, String) {
        func matches(_ codes: CURLcode...) -> Bool { codes.contains { Int($0.rawValue) == code } }

        if matches(CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY) {
            return (.transient, .connectionFailed, "the backend's host name did not resolve")
        }
        if matches(CURLE_COULDNT_CONNECT) {
            return (.transient, .connectionFailed, "could not connect to the backend")
        }
        if matches(CURLE_SSL_CONNECT_ERROR) {
            return (.transient, .connectionFailed, "the TLS handshake with the backend failed")
        }
        if matches(CURLE_OPERATION_TIMEDOUT) {
            return (.transient, .timedOut, "the request timed out")
        }
        // The client checks the URL's scheme before sending, so an unsupported protocol here
        // means a reply that is not HTTP (curl refuses HTTP/0.9): a broken server or proxy.
        if matches(CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY) {
            return (.transient, .transferFailed, "the backend's reply was not HTTP")
        }
        if matches(CURLE_URL_MALFORMAT) {
            return (.configuration, .invalidConfiguration, "the backend URL cannot be used")
        }
        // A certificate that is not trusted stays untrusted however often it is retried.
        if matches(CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
                   CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH) {
            return (.configuration, .invalidConfiguration, "the backend's TLS certificate is not trusted")
        }
        if matches(CURLE_ABORTED_BY_CALLBACK) {
            return (.cancelled, .cancelled, "the request was cancelled")
        }
        if matches(CURLE_OUT_OF_MEMORY, CURLE_FAILED_INIT, CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION,
                   CURLE_NOT_BUILT_IN) {
            return (.internal, .clientFailure, "libcurl failed")
        }
        // Resets, empty replies, cut-short bodies, non-HTTP replies: the connection or the
        // server broke, and a new request may well succeed.
        return (.transient, .transferFailed, "the transfer failed")
    }
}

extension TranscriptionError {
    /// Whether the failure says the backend is down rather than failing this request: it could
    /// not be reached (refused, DNS, TLS, no route) or the connection broke. Such failures pause
    /// the backend for the whole fleet instead of using up attempts. An HTTP answer, even a 5xx,
    /// means the backend is up; a timeout means it is slow (`meansBackendSlow`).
    public var meansBackendDown: Bool {
        failureClass == .transient && status == nil && [.connectionFailed, .transferFailed].contains(code)
    }

    /// The backend did not answer in time or stopped sending: it is not keeping up. The worker
    /// narrows its requests in flight (AIMD); once down to one, a timeout counts as an outage.
    public var meansBackendSlow: Bool {
        status == nil && [.timedOut, .stalled, .attemptTimeLimit].contains(code)
    }
}
