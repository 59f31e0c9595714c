import StenoInfrastructure

/// The text of an API key: `stk_` followed by 256 random bits in unpadded base64url (43
/// characters). The key is shown once when made; the database keeps only its SHA-256 and the
/// first characters (`prefix`), which name it in `steno keys list` and in logs.
public struct APIKeyToken: Sendable, Equatable, CustomStringConvertible {
    public static let marker = RandomToken.apiKeyMarker
    /// How many characters of the token `steno keys list` and the logs show.
    public static let prefixLength = RandomToken.apiKeyShownLength

    public let secret: String

    /// A new key from the system's cryptographic random source (`getrandom` on Linux).
    public static func generate() -> APIKeyToken {
        APIKeyToken(validated: RandomToken.make(marker: marker))
    }

    /// The token of an `Authorization: Bearer` header, or nil when it cannot be a Steno key
    /// (the wrong marker or length, or characters base64url does not use).
    public init?(parsing text: Substring) {
        guard RandomToken.isToken(text, marker: Self.marker) else { return nil }
        secret = String(text)
    }

    private init(validated: String) { secret = validated }

    /// The part shown in lists and logs; it does not let anyone use the key.
    public var prefix: String { String(secret.prefix(Self.prefixLength)) }

    /// Never the secret: a token interpolated into a log line shows its prefix only.
    public var description: String { "\(prefix)…" }
}
