import StenoCore
import StenoInfrastructure
import Testing

@Suite("SecretRedactor")
struct SecretRedactorTests {
    @Test("masks URL credentials, bearer tokens, keyword passwords and given secrets wherever they sit in the text", arguments: [
        ("postgres://user:hunter2@[bad/db", "postgres://user:[redacted]@[bad/db"),
        ("fetch http://alice:s3cr3t@media.example.com/x.mp3 failed", "fetch http://alice:[redacted]@media.example.com/x.mp3 failed"),
        ("https://TOKEN123@host/a and ftp://b:c@d", "https://[redacted]@host/a and ftp://b:[redacted]@d"),
        ("host=db password=hunter2 user=steno", "host=db password=[redacted] user=steno"),
        ("Authorization: Bearer sk-abc.def", "Authorization: Bearer [redacted]"),
        ("no secrets at all: https://example.com/x@y", "no secrets at all: https://example.com/x@y"),
        ("the key sk-live-123456 leaked", "the key [redacted] leaked"),
    ])
    func redacts(input: String, expected: String) {
        #expect(SecretRedactor(secrets: ["sk-live-123456"]).redact(input) == expected)
    }
}
