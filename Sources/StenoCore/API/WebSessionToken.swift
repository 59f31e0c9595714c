import StenoInfrastructure

/// The text of a web view session, the value of its cookie: `sts_` and 256 random bits in
/// unpadded base64url. The database keeps its SHA-256 only. The page's CSRF token is derived
/// from it (`StenoAPI`'s `WebSessionKeys`), so that a form is only accepted from a page of the
/// same session.
public struct WebSessionToken: Sendable, Equatable, CustomStringConvertible {
    public static let marker = RandomToken.webSessionMarker

    public let secret: String

    public static func generate() -> WebSessionToken {
        WebSessionToken(validated: RandomToken.make(marker: marker))
    }

    /// A cookie's value, or nil when it cannot be a session of Steno's.
    public init?(parsing text: Substring) {
        guard RandomToken.isToken(text, marker: Self.marker) else { return nil }
        secret = String(text)
    }

    private init(validated: String) { secret = validated }

    /// Never the secret.
    public var description: String { "\(Self.marker)…" }
}
