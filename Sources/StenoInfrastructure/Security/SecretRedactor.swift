import Foundation

/// Removes secrets from text before it is logged, stored as a reason, or printed: the one place
/// that knows what a secret looks like.
///
/// It masks the secrets it is given (an API key, a database password), any `Bearer <token>`,
/// the user information of every URL in the text (`https://user:pw@host` becomes
/// `https://user:[redacted]@host`), and `password=...` in a libpq keyword string. A backend or a
/// library may echo a request or a connection string back in an error, so no message from
/// outside is trusted to be free of them.
public struct SecretRedactor: Sendable {
    public static let replacement = "[redacted]"
    private let secrets: [String]

    public init(secrets: [String] = []) {
        // Longest first, so that a secret containing another is removed whole.
        self.secrets = secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    public func redact(_ text: String) -> String {
        var result = text
        for secret in secrets where result.contains(secret) {
            result = Self.replacingAll(secret, in: result, with: Self.replacement)
        }
        return Self.redactAPIKeys(in: Self.redactKeywordPasswords(in: Self.redactURLCredentials(in: Self.redactBearerTokens(in: result))))
    }

    /// Steno's own API keys (`stk_` and 43 characters) wherever they appear: the prefix stays,
    /// so that an operator can still tell which key it was.
    /// Web sessions (`sts_`) are cut to their marker: nothing names them to an operator.
    private static func redactAPIKeys(in text: String) -> String {
        var text = text
        if text.contains(RandomToken.apiKeyMarker) {
            text = text.replacing(/stk_[A-Za-z0-9_\-]{43}/) { match in
                String(match.output.prefix(RandomToken.apiKeyShownLength)) + "…" + replacement
            }
        }
        if text.contains(RandomToken.webSessionMarker) {
            text = text.replacing(/sts_[A-Za-z0-9_\-]{43}/) { _ in RandomToken.webSessionMarker + replacement }
        }
        return text
    }

    /// The text with the user information of every URL in it masked; the user name stays when
    /// there is a password after it, so that operators still see who connects.
    public static func redactURLCredentials(in text: String) -> String {
        guard text.contains("://") && text.contains("@") else { return text }
        var output = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            output += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            let authorityEnd = rest.firstIndex { "/?#\"' \n\t<>".contains($0) } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    output += userInfo[..<colon] + ":" + replacement
                } else {
                    output += replacement
                }
                rest = rest[at...]
            }
        }
        return output + rest
    }

    /// Any `Bearer <token>` is a credential, whoever's it is.
    private static func redactBearerTokens(in text: String) -> String {
        maskValues(after: "bearer ", in: text) { $0.isWhitespace || "\"',}".contains($0) }
    }

    /// `password=secret` in a libpq keyword string (or a URL's query).
    private static func redactKeywordPasswords(in text: String) -> String {
        maskValues(after: "password=", in: text) { $0 == " " || $0 == "&" || $0 == "\n" || $0 == "'" || $0 == "\"" }
    }

    /// Replaces the value after every `marker` (matched without regard to case), up to the first
    /// character for which `endsValue` holds.
    private static func maskValues(after marker: String, in text: String, endsValue: (Character) -> Bool) -> String {
        guard text.range(of: marker, options: .caseInsensitive) != nil else { return text }
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: marker, options: .caseInsensitive) {
            output += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let valueEnd = rest.firstIndex(where: endsValue) ?? rest.endIndex
            if valueEnd != rest.startIndex {
                output += replacement
                rest = rest[valueEnd...]
            }
        }
        return output + rest
    }

    private static func replacingAll(_ target: String, in text: String, with replacement: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: target) {
            output += rest[..<range.lowerBound]
            output += replacement
            rest = rest[range.upperBound...]
        }
        return output + rest
    }
}
