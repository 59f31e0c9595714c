import Foundation

/// Removes secrets from text that came from outside Steno before it is stored, logged or printed.
///
/// A backend may echo the request back in an error (a proxy's debug page, a misconfigured
/// gateway): its message is never trusted to be free of the key or of extra header values.
struct SecretRedactor: Sendable {
    static let replacement = "[redacted]"
    private let secrets: [String]

    init(secrets: [String]) {
        // Longest first, so that a secret containing another is removed whole.
        self.secrets = secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    func redact(_ text: String) -> String {
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingAll(secret, with: Self.replacement)
        }
        return Self.redactBearerTokens(in: result)
    }

    /// Any `Bearer <token>` is a credential, whoever's it is.
    private static func redactBearerTokens(in text: String) -> String {
        guard text.contains("Bearer ") || text.contains("bearer ") else { return text }
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: "bearer ", options: .caseInsensitive) {
            output += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let tokenEnd = rest.firstIndex { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "," || $0 == "}" } ?? rest.endIndex
            if tokenEnd != rest.startIndex {
                output += replacement
                rest = rest[tokenEnd...]
            }
        }
        return output + rest
    }
}
