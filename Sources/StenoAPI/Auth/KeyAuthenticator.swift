public import Hummingbird
import Logging
import StenoCore
import StenoInfrastructure
import StenoStore
import Synchronization

/// Checks the `Authorization: Bearer stk_...` key of every `/v1` request, applies its rate, and
/// puts it in the context. A key found is trusted for `cacheLifetime` before it is read again,
/// so that a busy client costs the database one lookup per key per few seconds, not one per
/// request; a revoked key stops working within that time.
public final class KeyAuthenticator: RouterMiddleware, Sendable {
    public typealias Context = APIRequestContext

    private struct Cached {
        var principal: APIPrincipal?
        var until: ContinuousClock.Instant
    }

    private let keys: KeyStore
    private let rate: RequestRate
    private let cacheLifetime: Duration
    private let metrics: APIMetrics
    private let logger: Logger
    private let cache = Mutex<[String: Cached]>([:])
    private let buckets = Mutex<[Int64: RequestRate.Bucket]>([:])
    private let used = Mutex<Set<Int64>>([])
    private let clock: any MonotonicClock
    private let start: ContinuousClock.Instant

    init(
        keys: KeyStore, rate: RequestRate, cacheLifetime: Duration, metrics: APIMetrics, clock: any MonotonicClock = .continuous, logger: Logger
    ) {
        self.clock = clock
        start = clock.now
        self.keys = keys
        self.rate = rate
        self.cacheLifetime = cacheLifetime
        self.metrics = metrics
        self.logger = logger
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = Self.token(in: request) else {
            metrics.recordRefusal("unauthorized")
            throw APIError(
                .unauthorized, code: "unauthorized", "send an API key in the Authorization header: the word Bearer, a space, and the key",
                hint: "an operator makes keys with `steno keys create --scope read|submit|admin|operate`")
        }
        guard let principal = try await principal(for: token) else {
            metrics.recordRefusal("unauthorized")
            throw APIError(.unauthorized, code: "invalid_key", "the API key \(token) is unknown or revoked")
        }
        if case let .refused(retryAfter) = take(principal) {
            metrics.recordRefusal("rate_limited")
            let seconds = max(1, Int(retryAfter.rounded(.up)))
            throw APIError(
                .tooManyRequests, code: "rate_limited", "this key sends more than \(Self.format(rate.requestsPerSecond)) requests a second",
                hint: "retry after \(seconds) s", retryAfter: seconds)
        }
        used.withLock { _ = $0.insert(principal.keyID) }
        var context = context
        context.principal = principal
        context.logger[metadataKey: "key"] = "\(principal.prefix)"
        return try await next(request, context)
    }

    /// The key of an `Authorization: Bearer` header, when it has Steno's form. Anything else is
    /// no key at all (and never echoed back: it may be someone's secret of another kind).
    static func token(in request: Request) -> APIKeyToken? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return APIKeyToken(parsing: parts[1].drop(while: { $0 == " " }))
    }

    private func principal(for token: APIKeyToken) async throws -> APIPrincipal? {
        let now = clock.now
        if let cached = cache.withLock({ $0[token.secret] }), cached.until > now {
            return cached.principal
        }
        let principal = try await keys.principal(for: token)
        cache.withLock { cache in
            // Unknown keys are remembered too (briefly), so that a client looping on a wrong key
            // does not reach the database each time; the map is emptied when it grows large.
            if cache.count > 10_000 { cache.removeAll(keepingCapacity: true) }
            cache[token.secret] = Cached(principal: principal, until: now + cacheLifetime)
        }
        return principal
    }

    private func take(_ principal: APIPrincipal) -> RequestRate.Decision {
        let now = (clock.now - start) / .seconds(1)
        return buckets.withLock { buckets in
            var bucket = buckets[principal.keyID] ?? rate.fullBucket(at: now)
            let decision = rate.take(from: &bucket, at: now)
            buckets[principal.keyID] = bucket
            return decision
        }
    }

    /// The keys used since the last call, for `last_used_at`.
    func takeUsedKeys() -> [Int64] {
        used.withLock { used in
            defer { used.removeAll() }
            return Array(used)
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
