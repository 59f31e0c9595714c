/// How long a written word takes to say, in letters of its spoken form: the measure by which
/// text that came without times is spread over the speech.
///
/// Letters count one each. Numbers count as they are read aloud, since a reader says
/// "twelve thousand" (14 letters) for `12,000` (5 characters) and "nineteen eighty-seven" for
/// `1987`: counting digits as letters would put every sentence with a number too early.
/// The readings are English; other languages' numbers are about as long as spoken.
public enum SpokenLength {
    /// Letters of `word` as spoken: its letters, its numbers spelt out (`12,000`, `1987`,
    /// `3.5`, `1st`), and the words a few symbols stand for (`%`, `&`, `+`, `$`, `€`, `£`).
    public static func letters(_ word: String) -> Int {
        var total = 0
        var characters = Array(word)[...]
        while let character = characters.first {
            if character.isASCIIDigit {
                total += number(&characters)
            } else {
                characters.removeFirst()
                if character.isLetter {
                    total += 1
                } else if let symbol = symbols[character] {
                    total += symbol
                }
            }
        }
        return total
    }

    /// Reads one number from the front of `characters`: digits with thousands separators
    /// (`12,000`), a decimal part (`3.25`: "three point two five"), an ordinal suffix
    /// (`21st` reads as long as "twenty-first").
    private static func number(_ characters: inout ArraySlice<Character>) -> Int {
        var digits = ""
        var grouped = false
        while let character = characters.first {
            if character.isASCIIDigit {
                digits.append(character)
                characters.removeFirst()
            } else if character == ",", characters.count > 3,
                characters.dropFirst().prefix(3).allSatisfy(\.isASCIIDigit),
                characters.dropFirst(4).first.map({ !$0.isASCIIDigit }) ?? true
            {
                grouped = true
                characters.removeFirst()
            } else {
                break
            }
        }
        var total = letters(of: NumberWords.english(digits, grouped: grouped))
        if characters.first == ".", characters.dropFirst().first?.isASCIIDigit == true {
            characters.removeFirst()
            total += 5  // "point"
            while let character = characters.first, character.isASCIIDigit {
                total += NumberWords.ones[Int(String(character))!].count
                characters.removeFirst()
            }
        }
        // "1st", "22nd", "3rd", "4th": the suffix is already in the spoken word's length.
        let suffix = String(characters.prefix(2)).lowercased()
        if ["st", "nd", "rd", "th"].contains(suffix), characters.dropFirst(2).first.map({ !$0.isLetter }) ?? true {
            characters.removeFirst(2)
            total += 2
        }
        return total
    }

    private static func letters(of words: [String]) -> Int {
        words.reduce(0) { $0 + $1.count }
    }

    private static let symbols: [Character: Int] = ["%": 7, "&": 3, "+": 4, "$": 7, "€": 5, "£": 6, "@": 2]
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
