/// FNV-1a, 64 bits: a quick digest of bytes that is the same in every process, release and
/// machine (Swift's `Hasher` is seeded per process). Not cryptographic: for checksums that detect
/// a change (a migration's file edited after it was applied) and for names and test data derived
/// from content.
public struct FNV1a: Sendable, Hashable {
    public private(set) var value: UInt64 = Self.offsetBasis

    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    public init() {}

    public mutating func combine(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    public mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { combine(byte) }
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hasher = FNV1a()
        hasher.combine(bytes)
        return hasher.value
    }

    /// The digest of the text's UTF-8 in lowercase hexadecimal, without leading zeros.
    public static func hex(_ text: String) -> String {
        String(hash(text.utf8), radix: 16)
    }
}
