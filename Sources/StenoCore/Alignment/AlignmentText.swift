import Foundation

/// A text-only answer as an aligner reads it: each of the answer's words (as written, with its
/// punctuation and capitals) with the plain lower-case words it is spoken as. "Ashby-le-Zouch,"
/// is spoken as "ashby", "le", "zouch"; "1918" as "nineteen", "eighteen"; "—" as nothing.
public struct AlignmentText: Sendable, Equatable {
    public struct Token: Sendable, Equatable {
        /// The word as the answer wrote it.
        public var text: String
        /// What is said for it, in order; empty for marks that are not spoken.
        public var spoken: [String]
    }

    public var tokens: [Token]

    public init(_ text: String) {
        tokens = text.split(whereSeparator: \.isWhitespace).map { Token(text: String($0), spoken: Self.spoken(String($0))) }
    }

    /// Every spoken word of the text, in order.
    public var spokenWords: [String] { tokens.flatMap(\.spoken) }

    /// The spoken words of one written word: letters (with apostrophes inside a word, as in
    /// "don't") lower-cased, runs of digits read as an English number, anything else a break.
    static func spoken(_ written: String) -> [String] {
        var words: [String] = []
        var letters = ""
        var digits = ""
        var grouped = false
        func flush() {
            let trimmed = letters.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            if !trimmed.isEmpty { words.append(trimmed) }
            if !digits.isEmpty { words += NumberWords.english(digits, grouped: grouped) }
            letters = ""
            digits = ""
            grouped = false
        }
        let characters = Array(written.lowercased())
        for (index, character) in characters.enumerated() {
            if character.isLetter {
                if !digits.isEmpty { flush() }
                letters.append(character)
            } else if character.isASCII, character.isNumber {
                if !letters.isEmpty { flush() }
                digits.append(character)
            } else if character == "'" || character == "\u{2019}", !letters.isEmpty {
                letters.append("'")
            } else if character == "," || character == ".", !digits.isEmpty, index + 1 < characters.count,
                characters[index + 1].isASCII, characters[index + 1].isNumber
            {
                // 1,000 is one number; 3.5 is read digit by digit past the point, as "three point five".
                if character == "." {
                    flush()
                    words.append("point")
                } else {
                    grouped = true
                }
            } else {
                flush()
            }
        }
        flush()
        // "3." at a sentence's end: the point was the sentence's.
        if words.last == "point" { words.removeLast() }
        return words
    }
}
