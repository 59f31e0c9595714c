/// A backend's fleet-wide rate limit as `steno workers` shows it: the limits, what is free now
/// (the buckets refilled to this moment), and how many requests went through or had to wait.
public struct RateLimitStatus: Sendable, Equatable, Codable {
    public var backend: String
    public var limit: RateLimit
    public var requestsFree: Double?
    public var audioSecondsFree: Double?
    public var granted: Int64
    public var waited: Int64

    public init(backend: String, limit: RateLimit, requestsFree: Double?, audioSecondsFree: Double?, granted: Int64, waited: Int64) {
        self.backend = backend
        self.limit = limit
        self.requestsFree = requestsFree
        self.audioSecondsFree = audioSecondsFree
        self.granted = granted
        self.waited = waited
    }

    enum CodingKeys: String, CodingKey {
        case backend, limit
        case requestsFree = "requests_free"
        case audioSecondsFree = "audio_seconds_free"
        case granted, waited
    }
}
