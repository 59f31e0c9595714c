import Foundation
public import Hummingbird
import StenoCore
import StenoInfrastructure
import StenoStore

/// An answer that is not a success, with a stable code. The body has OpenAI's error shape, so
/// that OpenAI clients show the message: `{"error": {"message", "type", "param", "code", "hint"}}`.
/// `description` is safe to log: it never holds a key, a password or a URL's credentials.
public struct APIError: Error, HTTPResponseError, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    /// A stable code, such as `not_found` or `upload_too_large`.
    public var code: String
    public var message: String
    /// The request field at fault, for 400s.
    public var field: String?
    /// What to do about it.
    public var hint: String?
    /// Seconds until a retry can succeed (429, 503).
    public var retryAfter: Int?
    /// The methods a path answers (405).
    public var allow: String?

    public init(
        _ status: HTTPResponse.Status, code: String, _ message: String, field: String? = nil, hint: String? = nil, retryAfter: Int? = nil,
        allow: String? = nil
    ) {
        self.allow = allow
        self.status = status
        self.code = code
        self.message = SecretRedactor().redact(message)
        self.field = field
        self.hint = hint.map { SecretRedactor().redact($0) }
        self.retryAfter = retryAfter
    }

    public var description: String {
        "\(status.code) \(code): \(message)" + (hint.map { " (\($0))" } ?? "")
    }

    /// OpenAI's error `type` for the status.
    var type: String {
        switch status.code {
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 405: "invalid_request_error"
        case 429: "rate_limit_error"
        case 500...: "server_error"
        default: "invalid_request_error"
        }
    }

    struct Body: Encodable {
        struct Detail: Encodable {
            var message: String
            var type: String
            var param: String?
            var code: String
            var hint: String?
        }
        var error: Detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let allow { headers[.allow] = allow }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"steno\"" }
        let body = Body(error: .init(message: message, type: type, param: field, code: code, hint: hint))
        let data = try JSONEncoder().encode(body)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension APIError {
    static func badRequest(_ message: String, field: String? = nil, hint: String? = nil) -> APIError {
        APIError(.badRequest, code: "invalid_request", message, field: field, hint: hint)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(.notFound, code: "not_found", message)
    }

    /// The store's errors as answers: the admin CLI's codes become statuses.
    static func from(_ error: AdminError) -> APIError {
        // The store's hints name CLI commands; over HTTP the same operation is a route.
        let hint = error.hint.map(Self.httpHint)
        switch error.code {
        case .notFound: return APIError(.notFound, code: "not_found", error.message, hint: hint)
        case .invalidInput: return APIError(.badRequest, code: "invalid_request", error.message, hint: hint)
        case .duplicateSource: return APIError(.conflict, code: "duplicate_source", error.message, hint: hint)
        case .wrongState: return APIError(.conflict, code: "wrong_state", error.message, hint: hint)
        case .noTranscript: return APIError(.conflict, code: "no_transcript", error.message, hint: hint)
        case .transcriptChanged: return APIError(.conflict, code: "transcript_changed", error.message, hint: hint)
        case .schemaOutdated: return APIError(.serviceUnavailable, code: "schema_outdated", error.message, hint: hint, retryAfter: 30)
        default: return APIError(.internalServerError, code: error.code.rawValue, error.message, hint: hint)
        }
    }

    static func httpHint(_ hint: String) -> String {
        hint.replacing(/`steno status (\d+)`/) { "GET /v1/media/\($0.1)" }
            .replacing(/`steno retry (\d+)`/) { "POST /v1/media/\($0.1)/retry" }
            .replacing(/`steno wait (\d+)`/) { "GET /v1/events?media=\($0.1)" }
            .replacing("`steno list`", with: "GET /v1/media")
            .replacing(/`steno transcript (\d+)`/) { "GET /v1/media/\($0.1)/transcript" }
    }
}
