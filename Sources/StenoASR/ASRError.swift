import Foundation

/// An error answered in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`.
public struct ASRError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var message: String
    public var type: String
    public var code: String
    public var param: String?
    /// Seconds for a `Retry-After` header.
    public var retryAfter: Int?

    public init(status: Int, message: String, type: String = "invalid_request_error", code: String, param: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.retryAfter = retryAfter
    }

    public var description: String { "HTTP \(status) \(code): \(message)" }

    var jsonBody: Data {
        struct Envelope: Encodable {
            struct Body: Encodable {
                var message: String
                var type: String
                var param: String?
                var code: String
            }
            var error: Body
        }
        let envelope = Envelope(error: .init(message: message, type: type, param: param, code: code))
        return (try? JSONEncoder().encode(envelope)) ?? Data("{\"error\":{\"message\":\"internal error\"}}".utf8)
    }

    static func missingField(_ name: String) -> ASRError {
        ASRError(status: 400, message: "'\(name)' is a required field of the multipart form", code: "missing_field", param: name)
    }
}
