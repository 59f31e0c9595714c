import CZlib

/// zlib's deflate, the one module that imports CZlib.
public enum Deflate {
    /// The length of `bytes` compressed by zlib at its default level (6), with its 2-byte header
    /// and 4-byte checksum: what Python's `len(zlib.compress(bytes))` gives, which is what
    /// Whisper divides by.
    public static func compressedLength(of bytes: [UInt8]) -> Int {
        var capacity = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                compress2(output.baseAddress, &capacity, input.baseAddress, uLong(input.count), Z_DEFAULT_COMPRESSION)
            }
        }
        // compressBound is the worst case, and the only failures are a short buffer or no memory.
        precondition(status == Z_OK, "zlib's compress2 failed with status \(status)")
        return Int(capacity)
    }
}
