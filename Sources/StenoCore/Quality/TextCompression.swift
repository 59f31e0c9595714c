import StenoZlib

/// How well a text compresses, as Whisper measures it to catch loops: its UTF-8 length over
/// its zlib-compressed length (level 6, with zlib's framing). Whisper retries a decode above 2.4.
public enum TextCompression {
    public static func ratio(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        return Double(bytes.count) / Double(Deflate.compressedLength(of: bytes))
    }
}
