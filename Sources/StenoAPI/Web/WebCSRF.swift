import Crypto
import Foundation
import StenoCore

/// The CSRF token of a session's forms: an HMAC of a fixed label under the session's secret.
/// Nothing is stored for it, a page of one session cannot make a form another session accepts,
/// and a site that cannot read the session's pages cannot learn it. Sign-in, before there is a
/// session, uses a double-submitted random token instead (`signInToken`).
enum WebCSRF {
    static let fieldName = "csrf"
    /// The cookie that carries the sign-in form's token, beside the form's hidden field.
    static let signInCookie = "steno_signin"

    static func token(for session: WebSessionToken) -> String {
        let key = SymmetricKey(data: Data(session.secret.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("steno-web-csrf-v1".utf8), using: key)
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether a form's token is the session's, compared in constant time.
    static func accepts(_ submitted: String?, for session: WebSessionToken) -> Bool {
        guard let submitted else { return false }
        return constantTimeEqual(submitted, token(for: session))
    }

    /// A random token for the sign-in form.
    static func signInToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    static func isSignInToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
