/// The state of one backend's fleet-wide rate limit: a token bucket per limit, refilled at the
/// limit's rate and holding at most one window's worth (a minute of requests, an hour of audio).
///
/// A request takes one request token and its audio's seconds; when either bucket is short, it
/// waits for the refill instead. The decision is pure; the store keeps the bucket in a row that
/// every worker locks while it decides, so that the fleet shares one budget.
public struct TokenBucket: Sendable, Hashable {
    public var requests: Double
    public var audioSeconds: Double
    /// When the buckets were last brought up to date, in seconds on the database's clock.
    public var refilledAt: Double

    public enum Decision: Sendable, Hashable {
        case granted
        /// Not before this many seconds from now.
        case wait(Double)
    }

    public init(requests: Double, audioSeconds: Double, refilledAt: Double) {
        self.requests = requests
        self.audioSeconds = audioSeconds
        self.refilledAt = refilledAt
    }

    /// Full buckets: a fleet that starts may use a window's worth at once.
    public static func full(_ limit: RateLimit, at now: Double) -> TokenBucket {
        TokenBucket(requests: limit.requestsPerMinute ?? 0, audioSeconds: limit.audioSecondsPerHour ?? 0, refilledAt: now)
    }

    /// Brings the buckets up to `now`: refilled at the limits' rates for the time since
    /// `refilledAt`, never past a window's worth. A clock that steps back refills nothing.
    public mutating func refill(_ limit: RateLimit, at now: Double) {
        let elapsed = max(0, now - refilledAt)
        refilledAt = max(refilledAt, now)
        if let perMinute = limit.requestsPerMinute, perMinute > 0 {
            requests = min(perMinute, requests + elapsed * perMinute / 60)
        }
        if let perHour = limit.audioSecondsPerHour, perHour > 0 {
            audioSeconds = min(perHour, audioSeconds + elapsed * perHour / 3600)
        }
    }

    /// Refills for the time since `refilledAt`, then takes a request of `audio` seconds if both
    /// buckets hold enough. A request longer than an hour's budget needs only a full bucket, so
    /// that it waits instead of never being sent.
    public mutating func take(audio: Double, limit: RateLimit, at now: Double) -> Decision {
        refill(limit, at: now)
        var waits: [Double] = []
        if let perMinute = limit.requestsPerMinute, perMinute > 0, requests < 1 {
            waits.append((1 - requests) * 60 / perMinute)
        }
        var needed = 0.0
        if let perHour = limit.audioSecondsPerHour, perHour > 0 {
            needed = min(max(0, audio), perHour)
            if audioSeconds < needed { waits.append((needed - audioSeconds) * 3600 / perHour) }
        }
        if let longest = waits.max() { return .wait(longest) }
        if limit.requestsPerMinute != nil { requests -= 1 }
        if limit.audioSecondsPerHour != nil { audioSeconds -= needed }
        return .granted
    }
}
