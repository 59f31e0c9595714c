/// Reads the protocol-buffer wire format (varints, length-delimited fields, fixed 32/64-bit
/// values): just enough to walk an ONNX file to its weights. A malformed or truncated file
/// throws instead of reading past the end.
struct ProtobufReader {
    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    /// One field: its number, and its value (a varint's number, or a length-delimited field's bytes).
    enum Value {
        case varint(UInt64)
        case bytes(Range<Int>)
        case fixed
    }

    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        self.position = range?.lowerBound ?? 0
        self.end = range?.upperBound ?? bytes.count
    }

    var isAtEnd: Bool { position >= end }

    mutating func nextField() throws(VoiceModelError) -> (number: UInt64, value: Value) {
        let key = try varint()
        guard let wire = WireType(rawValue: key & 7) else {
            throw VoiceModelError(.malformedModel, "unknown protobuf wire type \(key & 7) at byte \(position)")
        }
        let number = key >> 3
        switch wire {
        case .varint:
            return (number, .varint(try varint()))
        case .fixed64:
            try skip(8)
            return (number, .fixed)
        case .fixed32:
            try skip(4)
            return (number, .fixed)
        case .lengthDelimited:
            let length = try varint()
            guard length <= UInt64(end - position) else {
                throw VoiceModelError(.malformedModel, "a field of \(length) bytes runs past the end of the file at byte \(position)")
            }
            let start = position
            position += Int(length)
            return (number, .bytes(start..<position))
        }
    }

    mutating func varint() throws(VoiceModelError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end, shift < 64 else {
                throw VoiceModelError(.malformedModel, "a truncated or overlong varint at byte \(position)")
            }
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private mutating func skip(_ count: Int) throws(VoiceModelError) {
        guard end - position >= count else {
            throw VoiceModelError(.malformedModel, "a fixed-size field runs past the end of the file at byte \(position)")
        }
        position += count
    }
}
