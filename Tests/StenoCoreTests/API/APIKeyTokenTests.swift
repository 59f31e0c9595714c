import StenoCore
import StenoInfrastructure
import Testing

@Suite("API key tokens")
struct APIKeyTokenTests {
    @Test("a generated key has the stk_ marker and 43 base64url characters, and parses back")
    func generatedKeyParses() {
        let token = APIKeyToken.generate()
        #expect(token.secret.hasPrefix("stk_"))
        #expect(token.secret.count == 47)
        #expect(APIKeyToken(parsing: Substring(token.secret)) == token)
        #expect(token.prefix.count == APIKeyToken.prefixLength)
    }

    @Test("a thousand keys are all different")
    func keysDiffer() {
        #expect(Set((0..<1000).map { _ in APIKeyToken.generate().secret }).count == 1000)
    }

    @Test("a token interpolated into text shows its prefix only, and the redactor hides one anywhere")
    func secretStaysHidden() {
        let token = APIKeyToken.generate()
        #expect(!"\(token)".contains(token.secret))
        #expect("\(token)".hasPrefix(token.prefix))
        let redacted = SecretRedactor().redact("key=\(token.secret) failed")
        #expect(!redacted.contains(token.secret))
        #expect(redacted.contains(token.prefix))
    }

    @Test("other bearer tokens are not Steno keys", arguments: ["sk-abc", "stk_short", "stk_" + String(repeating: "a", count: 42) + "!", ""])
    func foreignTokensAreRefused(_ text: String) {
        #expect(APIKeyToken(parsing: Substring(text)) == nil)
    }

    @Test("scopes include the ones below them")
    func scopeOrder() {
        #expect(APIScope.admin.allows(.submit) && APIScope.admin.allows(.read))
        #expect(APIScope.submit.allows(.read) && !APIScope.submit.allows(.admin))
        #expect(!APIScope.read.allows(.submit))
    }
}
