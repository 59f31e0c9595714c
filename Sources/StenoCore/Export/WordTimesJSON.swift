import Foundation

/// Reads `segments.words` (an array of `{"word", "start", "end"}` objects, as PostgreSQL prints
/// jsonb) into word times.
///
/// A 40-hour book has some 600,000 words; `JSONDecoder` spent most of a caption export on them.
/// The text PostgreSQL prints is regular, so a direct reader takes it in one pass over its bytes;
/// anything it does not expect (an escape in a string, another key, a missing one, odd
/// numbers) goes to `JSONDecoder`, whose answer is then the answer, so both always agree.
public enum WordTimesJSON {
    /// The word times, or an error when the text is not such an array.
    public static func decode(_ json: String) throws -> [Transcript.Word] {
        if let words = fastDecode(json) { return words }
        return try JSONDecoder().decode([TimedWord].self, from: Data(json.utf8)).map {
            Transcript.Word(word: $0.word, start: $0.start, end: $0.end, speakerNumber: $0.speaker)
        }
    }

    /// nil when the text is anything but plain objects with the three keys once each.
    static func fastDecode(_ json: String) -> [Transcript.Word]? {
        var json = json
        return json.withUTF8 { bytes -> [Transcript.Word]? in
            var reader = Reader(bytes: bytes)
            return reader.array()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func array() -> [Transcript.Word]? {
            skipSpace()
            guard take(UInt8(ascii: "[")) else { return nil }
            var words: [Transcript.Word] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return atEnd() ? words : nil }
            while true {
                guard let word = object() else { return nil }
                words.append(word)
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "]")) else { return nil }
                return atEnd() ? words : nil
            }
        }

        private mutating func object() -> Transcript.Word? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var word: String?
            var start: Double?
            var end: Double?
            var speaker: Int?
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                switch key {
                case "word":
                    guard word == nil, let value = string() else { return nil }
                    word = value
                case "start":
                    guard start == nil, let value = number() else { return nil }
                    start = value
                case "end":
                    guard end == nil, let value = number() else { return nil }
                    end = value
                case "speaker":
                    guard speaker == nil, let value = number(), let whole = Int(exactly: value) else { return nil }
                    speaker = whole
                default:
                    return nil
                }
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")), let word, let start, let end else { return nil }
                return Transcript.Word(word: word, start: start, end: end, speakerNumber: speaker)
            }
        }

        /// A string without escapes or control characters.
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let first = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<position]), as: UTF8.self)
                    position += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                position += 1
            }
            return nil
        }

        /// A number in JSON's grammar, finite as a Double.
        private mutating func number() -> Double? {
            let first = position
            _ = take(UInt8(ascii: "-"))
            let integerStart = position
            let integerDigits = digits()
            // No leading zeros: `0` alone, or `0.` something.
            guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
            if take(UInt8(ascii: ".")) {
                guard digits() > 0 else { return nil }
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
                guard digits() > 0 else { return nil }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<position]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { return nil }
            return value
        }

        private mutating func digits() -> Int {
            let first = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - first
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        private mutating func skipSpace() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
                default: return
                }
            }
        }

        private func atEnd() -> Bool {
            var index = position
            while index < bytes.count, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(bytes[index]) {
                index += 1
            }
            return index == bytes.count
        }
    }
}
