import StenoCore
import Testing

@Suite("API key tokens")
struct APIKeyTokenTests {
    @Test("a generated key has the stk_ marker, 43 base64url characters, and parses back")
    func generatedKeyParses() {
        let token = APIKeyToken.generate()
        #expect(token.secret.hasPrefix("stk_"))
        #expect(token.secret.count == 47)
        #expect(APIKeyToken(parsing: Substring(token.secret)) == token)
        #expect(token.prefix.count == APIKeyToken.prefixLength)
    }

    @Test("two keys differ")
    func keysDiffer() {
        #expect(APIKeyToken.generate() != APIKeyToken.generate())
    }

    @Test("a token interpolated into text shows its prefix only")
    func descriptionHidesTheSecret() {
        let token = APIKeyToken.generate()
        #expect(!"\(token)".contains(token.secret))
        #expect("\(token)".hasPrefix(token.prefix))
    }

    @Test("other bearer tokens are not Steno keys", arguments: ["sk-abc", "stk_short", "stk_" + String(repeating: "a", count: 42) + "!", ""])
    func foreignTokensAreRefused(_ text: String) {
        #expect(APIKeyToken(parsing: Substring(text)) == nil)
    }
}
