public import Hummingbird
public import StenoCore

/// A request as the routes see it: Hummingbird's core context and the key that signed it.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `KeyAuthenticator` on every `/v1` route.
    public var principal: APIPrincipal?
    /// Set by `WebSessionAuthenticator` on the web view's pages: the session the cookie names,
    /// from which each page's CSRF token is derived.
    public var webSession: WebSessionToken?

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// JSON bodies are small; uploads stream and never go through this limit.
    public var maxUploadSize: Int { 1 << 20 }

    /// The key of an authenticated route; a route reached without one is a server bug.
    func requirePrincipal() throws -> APIPrincipal {
        guard let principal else { throw APIError(.unauthorized, code: "unauthorized", "this route needs an API key") }
        return principal
    }

    /// The key, when its scope allows `needed`; 403 naming the scope otherwise.
    func require(_ needed: APIScope) throws -> APIPrincipal {
        let principal = try requirePrincipal()
        guard principal.scope.allows(needed) else {
            throw APIError(
                .forbidden, code: "insufficient_scope", "this key has the \(principal.scope.rawValue) scope; this needs \(needed.rawValue)",
                hint: "make a key with `steno keys create --scope \(needed.rawValue)`")
        }
        return principal
    }
}
