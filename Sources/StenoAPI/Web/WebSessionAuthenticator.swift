public import Hummingbird
import Logging
import StenoCore
import StenoInfrastructure
import StenoStore
import Synchronization

/// Finds the signed-in key of every web view page from its session cookie, and sends a
/// browser without one to the sign-in page (a page) or answers 401 (the event stream, audio
/// and downloads, which a page fetches). As with keys, a session found is trusted for
/// `cacheLifetime` before it is read again: signing out or revoking the key takes effect
/// within that time on other server processes, and at once on this one.
public final class WebSessionAuthenticator: RouterMiddleware, Sendable {
    public typealias Context = APIRequestContext

    static let cookieName = "steno_session"

    private struct Cached {
        var principal: APIPrincipal?
        var until: ContinuousClock.Instant
    }

    private let sessions: SessionStore
    private let cacheLifetime: Duration
    private let cache = Mutex<[String: Cached]>([:])

    private let clock: any MonotonicClock

    init(sessions: SessionStore, cacheLifetime: Duration, clock: any MonotonicClock = .continuous) {
        self.clock = clock
        self.sessions = sessions
        self.cacheLifetime = cacheLifetime
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = Self.token(in: request), let principal = try await principal(for: token) else {
            if Self.wantsPage(request) {
                return WebPages.redirect(to: "/sign-in?next=" + WebPages.percentEncoded(request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")))
            }
            throw APIError(.unauthorized, code: "signed_out", "sign in to the web view first", hint: "open /sign-in")
        }
        var context = context
        context.principal = principal
        context.webSession = token
        context.logger[metadataKey: "key"] = "\(principal.prefix)"
        return try await next(request, context)
    }

    static func token(in request: Request) -> WebSessionToken? {
        request.cookies[cookieName].flatMap { WebSessionToken(parsing: Substring($0.value)) }
    }

    /// A browser navigating (a GET that accepts HTML) is sent to sign in; anything else is told 401.
    static func wantsPage(_ request: Request) -> Bool {
        request.method == .get && (request.headers[.accept]?.contains("text/html") ?? false)
    }

    private func principal(for token: WebSessionToken) async throws -> APIPrincipal? {
        let now = clock.now
        if let cached = cache.withLock({ $0[token.secret] }), cached.until > now { return cached.principal }
        let principal = try await sessions.principal(for: token)
        cache.withLock { cache in
            if cache.count > 10_000 { cache.removeAll(keepingCapacity: true) }
            cache[token.secret] = Cached(principal: principal, until: now + cacheLifetime)
        }
        return principal
    }

    /// Forgets a session at once (signed out here).
    func forget(_ token: WebSessionToken) {
        _ = cache.withLock { $0.removeValue(forKey: token.secret) }
    }
}
