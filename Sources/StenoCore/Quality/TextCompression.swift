import Foundation

/// How well a text compresses, as Whisper measures it to catch loops: its UTF-8 length over
/// its zlib-compressed length. Whisper retries a decode above 2.4.
///
/// The compressed length is estimated by a greedy LZ77 parse over deflate's 32 KB window,
/// priced as deflate would code it: with the fixed Huffman codes, or with codes built for the
/// text (their entropy plus the cost of sending the code lengths) when that is smaller, as
/// zlib chooses for longer text; plus zlib's 6 bytes of framing. Close to zlib's ratio on
/// sentences and loops alike
/// (`TextCompressionTests` holds zlib's own figures), with no C library in the core.
public enum TextCompression {
    public static func ratio(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        return Double(bytes.count) / Double(estimatedDeflateBytes(bytes))
    }

    static func estimatedDeflateBytes(_ bytes: [UInt8]) -> Int {
        let window = 32_768
        let longest = 258
        var latest: [Int: Int] = [:]
        var previous = [Int](repeating: -1, count: bytes.count)
        var bits = 0
        // Literal/length symbols (bytes, and 256 + the match length's code) and distance bits,
        // for the dynamic-code price.
        var symbols: [Int: Int] = [:]
        var distanceBits = 0
        var position = 0
        func key(_ at: Int) -> Int { Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) }
        func remember(_ at: Int) {
            guard at + 2 < bytes.count else { return }
            let k = key(at)
            previous[at] = latest[k] ?? -1
            latest[k] = at
        }
        while position < bytes.count {
            var bestLength = 0
            var bestDistance = 0
            if position + 2 < bytes.count {
                var candidate = latest[key(position)] ?? -1
                var steps = 0
                while candidate >= 0, position - candidate <= window, steps < 64 {
                    var length = 0
                    while position + length < bytes.count, length < longest, bytes[candidate + length] == bytes[position + length] { length += 1 }
                    if length > bestLength {
                        bestLength = length
                        bestDistance = candidate
                    }
                    candidate = previous[candidate]
                    steps += 1
                }
            }
            if bestLength >= 3 {
                let distance = position - bestDistance
                bits += matchBits(length: bestLength, distance: distance)
                symbols[256 + min(bestLength, 258) / 8, default: 0] += 1
                distanceBits += 5 + (distance <= 4 ? 0 : Int.bitWidth - (distance - 1).leadingZeroBitCount - 2)
                for offset in 0..<bestLength { remember(position + offset) }
                position += bestLength
            } else {
                bits += bytes[position] < 144 ? 8 : 9
                symbols[Int(bytes[position]), default: 0] += 1
                remember(position)
                position += 1
            }
        }
        let total = Double(symbols.values.reduce(0, +))
        let entropy = symbols.values.reduce(0.0) { $0 + Double($1) * log2(total / Double($1)) }
        // The code-length header: counts (14 bits), the code-length code (19 × 3 bits), and
        // about 5 bits for each symbol's code length.
        let dynamic = Int(entropy.rounded(.up)) + distanceBits + 14 + 57 + 5 * symbols.count
        // The 3-bit block header and 7-bit end-of-block code, then zlib's 2-byte header and 4-byte checksum.
        return (min(bits, dynamic) + 10 + 7) / 8 + 6
    }

    /// A fixed-code length/distance pair: the length code (7 or 8 bits) and its extra bits,
    /// the 5-bit distance code and its extra bits.
    static func matchBits(length: Int, distance: Int) -> Int {
        let lengthExtra = length == 258 ? 0 : length <= 10 ? 0 : max(0, Int.bitWidth - (length - 3).leadingZeroBitCount - 3)
        let lengthCode = length >= 115 ? 8 : 7
        let distanceExtra = distance <= 4 ? 0 : Int.bitWidth - (distance - 1).leadingZeroBitCount - 2
        return lengthCode + lengthExtra + 5 + distanceExtra
    }
}
