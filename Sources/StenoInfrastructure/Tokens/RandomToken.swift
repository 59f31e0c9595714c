/// Secrets made of random bits: a marker and 256 bits from the system's cryptographic random
/// source (`getrandom` on Linux) in unpadded base64url, 43 characters.
public enum RandomToken {
    /// The marker of Steno's API keys (`APIKeyToken`), and how much of a key lists and logs show.
    public static let apiKeyMarker = "stk_"
    public static let apiKeyShownLength = 12
    /// The marker of the web view's sessions (`WebSessionToken`).
    public static let webSessionMarker = "sts_"

    /// `marker` and 256 bits from the system's cryptographic random source, in 43 characters.
    public static func make(marker: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return marker + encode(bytes)
    }

    /// Whether `text` has the form `make(marker:)` makes.
    public static func isToken(_ text: Substring, marker: String) -> Bool {
        text.count == marker.count + 43 && text.hasPrefix(marker) && text.dropFirst(marker.count).allSatisfy(isAlphabet)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func isAlphabet(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return alphabet.contains(ascii)
    }

    public static func encode(_ bytes: [UInt8]) -> String {
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
