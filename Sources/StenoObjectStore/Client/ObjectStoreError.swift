/// Why the object store could not do what was asked. Its `description` names the setting or
/// the object, never a secret or a signed URL.
public struct ObjectStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A setting is missing or malformed; the message names it.
        case configuration
        /// The store refused the credentials (403 InvalidAccessKeyId, SignatureDoesNotMatch,
        /// AccessDenied): every request would fail the same way until an operator acts.
        case credentials
        /// The configured bucket does not exist.
        case noSuchBucket
        /// The object is not in the store.
        case noSuchObject
        /// The object is not the one stored: another size or entity tag (`SourceObject`).
        case changed
        /// No answer (refused, timed out), a 5xx, or 503 SlowDown: worth trying again later.
        case unavailable
        /// A source names an object outside the configured bucket, or the store refused a request.
        case refused
        /// Cancelled by the caller.
        case cancelled
    }

    public var code: Code
    public var message: String
    /// The store's own error code (`SlowDown`, `NoSuchKey`), when it answered with one.
    public var storeCode: String?
    /// The HTTP status, when the store answered.
    public var status: Int?

    public init(_ code: Code, _ message: String, storeCode: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.storeCode = storeCode
        self.status = status
    }

    /// Whether the same request may succeed later without anyone changing anything.
    public var isTransient: Bool { code == .unavailable }

    /// Whether every request fails this way until an operator fixes the configuration: the
    /// fleet should pause instead of failing media one by one.
    public var isConfiguration: Bool { code == .configuration || code == .credentials || code == .noSuchBucket }

    public var description: String {
        var text = message
        if let storeCode { text += " (\(storeCode)" + (status.map { ", HTTP \($0)" } ?? "") + ")" } else if let status { text += " (HTTP \(status))" }
        return text
    }
}
