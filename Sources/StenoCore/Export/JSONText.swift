/// JSON text written exactly as Foundation's `JSONEncoder` writes it with `.prettyPrinted` and
/// `.withoutEscapingSlashes`, so that exports written piece by piece are byte for byte the
/// documents the encoder made of the whole transcript (`TranscriptEncoderTests` compares them).
enum JSONText {
    /// A number as the encoder writes a `Double`: Swift's shortest round-trip form without a
    /// trailing `.0` (`1`, `0.35`, `1e-07`). JSON has no NaN or infinity; like the encoder's
    /// default strategy, they are refused.
    static func append(_ value: Double, to output: inout String) throws(TranscriptExportError) {
        guard value.isFinite else { throw TranscriptExportError.nonFiniteNumber }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output += text
    }

    static func append(_ value: Int, to output: inout String) {
        output += String(value)
    }

    /// A quoted string: `"` and `\` escaped, the controls as `\b \f \n \r \t` or `\u00xx`,
    /// everything else (slashes, non-ASCII) as it is.
    static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        let utf8 = text.utf8
        // Most text needs no escape: copy it whole.
        if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{8}": output += "\\b"
            case "\u{c}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// The pretty printer's indentation: two spaces a level.
    static func indent(_ level: Int) -> String {
        String(repeating: " ", count: level * 2)
    }
}
