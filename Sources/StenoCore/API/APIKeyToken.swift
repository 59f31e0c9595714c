/// The text of an API key: `stk_` followed by 256 random bits in unpadded base64url (43
/// characters). The key is shown once when made; the database keeps only its SHA-256 and the
/// first characters (`prefix`), which name it in `steno keys list` and in logs.
public struct APIKeyToken: Sendable, Equatable, CustomStringConvertible {
    public static let marker = "stk_"
    /// How many characters of the token `steno keys list` and the logs show.
    public static let prefixLength = 12

    public let secret: String

    /// A new key from the system's cryptographic random source (`getrandom` on Linux).
    public static func generate() -> APIKeyToken {
        APIKeyToken(validated: Base64URL.randomToken(marker: marker))
    }

    /// The token of an `Authorization: Bearer` header, or nil when it cannot be a Steno key
    /// (the wrong marker or length, or characters base64url does not use).
    public init?(parsing text: Substring) {
        guard Base64URL.isToken(text, marker: Self.marker) else { return nil }
        secret = String(text)
    }

    private init(validated: String) { secret = validated }

    /// The part shown in lists and logs; it does not let anyone use the key.
    public var prefix: String { String(secret.prefix(Self.prefixLength)) }

    /// Never the secret: a token interpolated into a log line shows its prefix only.
    public var description: String { "\(prefix)…" }
}

enum Base64URL {
    /// `marker` and 256 bits from the system's cryptographic random source, in 43 characters.
    static func randomToken(marker: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return marker + encode(bytes)
    }

    /// Whether `text` has the form `randomToken(marker:)` makes.
    static func isToken(_ text: Substring, marker: String) -> Bool {
        text.count == marker.count + 43 && text.hasPrefix(marker) && text.dropFirst(marker.count).allSatisfy(isAlphabet)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func isAlphabet(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return alphabet.contains(ascii)
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = UInt32(0)
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count {
                output.append(alphabet[Int((value >> (18 - 6 * position)) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
