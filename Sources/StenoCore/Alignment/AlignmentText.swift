import Foundation

/// A text-only answer as an aligner reads it: each of the answer's words (as written, with its
/// punctuation and capitals) with the plain lower-case words it is spoken as. "Ashby-le-Zouch,"
/// is spoken as "ashby", "le", "zouch"; "1918" as "nineteen", "eighteen"; "—" as nothing.
public struct AlignmentText: Sendable, Equatable {
    public struct Token: Sendable, Equatable {
        /// The word as the answer wrote it.
        public var text: String
        /// What the aligner listens for, in order; empty for marks that are not spoken.
        public var units: [SpokenUnit]
        /// What is usually said for it, in order.
        public var spoken: [String] { units.flatMap(\.usual) }
    }

    public var tokens: [Token]

    public init(_ text: String) {
        tokens = text.split(whereSeparator: \.isWhitespace).map { Token(text: String($0), units: Self.units(String($0))) }
    }

    /// Every spoken word of the text as usually said, in order.
    public var spokenWords: [String] { tokens.flatMap(\.spoken) }

    /// Everything the aligner listens for, in order.
    public var units: [SpokenUnit] { tokens.flatMap(\.units) }

    /// What one written word is said as: letters (with apostrophes inside a word, as in
    /// "don't") lower-cased; a run of digits as an English number in each way it is read,
    /// with an ordinal ("21st"), plural ("1990s"), percent ("5%") or currency ("$5") read with
    /// it; anything else a break.
    static func units(_ written: String) -> [SpokenUnit] {
        var units: [SpokenUnit] = []
        var letters = ""
        var currency: String?
        func flushLetters() {
            let trimmed = letters.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            if !trimmed.isEmpty { units.append(SpokenUnit(word: trimmed)) }
            letters = ""
        }
        let characters = Array(written.lowercased())
        func isDigit(_ at: Int) -> Bool { at < characters.count && characters[at].isASCII && characters[at].isNumber }
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isLetter {
                letters.append(character)
                index += 1
            } else if isDigit(index) {
                flushLetters()
                // 1,000 is one number.
                var digits = ""
                var grouped = false
                while index < characters.count {
                    if isDigit(index) {
                        digits.append(characters[index])
                    } else if characters[index] == ",", isDigit(index + 1) {
                        grouped = true
                    } else {
                        break
                    }
                    index += 1
                }
                var readings = NumberWords.readings(digits, grouped: grouped)
                var after: [SpokenUnit] = []
                if index + 1 < characters.count, characters[index] == ".", isDigit(index + 1) {
                    // 3.5 is read digit by digit past the point, as "three point five".
                    after.append(SpokenUnit(word: "point"))
                    index += 1
                    while isDigit(index) {
                        after += SpokenUnit.units(readings: NumberWords.readings(String(characters[index])))
                        index += 1
                    }
                } else {
                    let suffix = String(characters[index...].prefix { $0.isLetter })
                    if ["st", "nd", "rd", "th"].contains(suffix) {
                        readings = readings.map(NumberWords.ordinal)
                        index += 2
                    } else if suffix == "s" {
                        readings = readings.map(NumberWords.plural)
                        index += 1
                    }
                }
                if index < characters.count, characters[index] == "%" {
                    after.append(SpokenUnit(word: "percent"))
                    index += 1
                } else if let unit = currency {
                    after.append(SpokenUnit(word: digits == "1" && after.isEmpty ? unit : unit + "s"))
                }
                currency = nil
                units += SpokenUnit.units(readings: readings) + after
            } else {
                if character == "'" || character == "\u{2019}", !letters.isEmpty {
                    letters.append("'")
                } else {
                    flushLetters()
                    currency = Self.currencies[character] ?? currency
                }
                index += 1
            }
        }
        flushLetters()
        return units
    }

    /// Currency signs read after the amount: "$5" is "five dollars".
    static let currencies: [Character: String] = ["$": "dollar", "£": "pound", "€": "euro"]
}
