/// Text from media and users (file names, titles, sources, backend messages) made safe to print.
///
/// A file name can hold terminal escape sequences (which would recolour, retitle or clear the
/// operator's terminal) or a newline (which would break a table row in two). Every control
/// character is shown as a visible escape instead: `\n`, `\t`, `\r`, `\e`, or `\u{XX}`.
enum TerminalText {
    static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\u{1B}": result += "\\e"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// C0 and C1 controls, DEL, and the bidirectional overrides and isolates that reorder what
    /// follows them on screen.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
