/// A request rate per API key: a token bucket of `burst` requests refilled at
/// `requestsPerSecond`. Pure: the caller passes the time, so tests need no clock.
public struct RequestRate: Sendable, Equatable {
    public var requestsPerSecond: Double
    public var burst: Double

    public init(requestsPerSecond: Double, burst: Double) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = max(1, burst)
    }

    public struct Bucket: Sendable, Equatable {
        public var tokens: Double
        public var updatedAt: Double
    }

    public enum Decision: Sendable, Equatable {
        case allowed
        /// Refused; a request is allowed again after this many seconds (`Retry-After`).
        case refused(retryAfter: Double)
    }

    public func fullBucket(at now: Double) -> Bucket { Bucket(tokens: burst, updatedAt: now) }

    /// Takes one token from `bucket` when it has one; else says when it will.
    public func take(from bucket: inout Bucket, at now: Double) -> Decision {
        let elapsed = max(0, now - bucket.updatedAt)
        bucket.tokens = min(burst, bucket.tokens + elapsed * requestsPerSecond)
        bucket.updatedAt = max(bucket.updatedAt, now)
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return .allowed
        }
        guard requestsPerSecond > 0 else { return .refused(retryAfter: 60) }
        return .refused(retryAfter: (1 - bucket.tokens) / requestsPerSecond)
    }
}
