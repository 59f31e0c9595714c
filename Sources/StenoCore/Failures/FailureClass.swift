/// Every failure falls in exactly one class; the class decides what happens next.
/// See docs/architecture.md, "Failures".
public enum FailureClass: String, Sendable, CaseIterable, Codable {
    /// Connection refused or reset, DNS, timeouts, 408, 409, 429 rate limit, 5xx: retry.
    case transient
    /// 400, 404, 415, 422: the request itself is wrong; fail at once with the backend's message.
    case permanent
    /// 413 or an encoded chunk over the size limit: split the chunk, never send it as is.
    case tooLarge = "too_large"
    /// 401, 403, 429 insufficient_quota: stop claiming work for that backend for a while.
    case configuration
    /// Unreadable, corrupt, no audio stream, unsupported codec: the media fails with a plain reason.
    case media
    /// The cancel flag, or shutdown.
    case cancelled
    /// The worker's lease expired: a crashed or frozen worker; any worker rescues the job.
    case lostLease = "lost_lease"
    /// A bug or an unexpected condition in Steno itself.
    case `internal`

    /// Whether the job may run again after a failure of this class.
    public var isRetryable: Bool {
        switch self {
        case .transient, .lostLease, .internal: true
        case .permanent, .tooLarge, .configuration, .media, .cancelled: false
        }
    }
}
