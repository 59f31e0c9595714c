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
        var total: Int
        // A number too long to read as one ("0042", a phone number) is read digit by digit.
        if digits.count > 15 || (digits.count > 1 && digits.first == "0") {
            total = digits.reduce(0) { $0 + ones[Int(String($1))!].count }
        } else if !grouped, digits.count == 4, let value = Int(digits), (1100...1999).contains(value) || (2010...2099).contains(value) {
            // Years read as two pairs: "nineteen eighty-seven", "twenty twenty-six".
            let low = value % 100
            total = belowHundred(value / 100) + (low == 0 ? 7 : low < 10 ? 2 + belowHundred(low) : belowHundred(low))
        } else {
            total = spelled(UInt64(digits) ?? 0)
        }
        if characters.first == ".", characters.dropFirst().first?.isASCIIDigit == true {
            characters.removeFirst()
            total += 5  // "point"
            while let character = characters.first, character.isASCIIDigit {
                total += ones[Int(String(character))!].count
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

    /// Letters of `value` spelt out in English ("one hundred twenty-three thousand ...").
    static func spelled(_ value: UInt64) -> Int {
        if value == 0 { return 4 }
        var total = 0
        var rest = value
        var scale = 0
        while rest > 0 {
            let group = Int(rest % 1000)
            if group > 0 { total += belowThousand(group) + scales[scale].count }
            rest /= 1000
            scale += 1
        }
        return total
    }

    private static func belowThousand(_ value: Int) -> Int {
        let hundreds = value / 100
        return (hundreds > 0 ? ones[hundreds].count + 7 : 0) + (value % 100 > 0 ? belowHundred(value % 100) : 0)
    }

    private static func belowHundred(_ value: Int) -> Int {
        value < 20 ? ones[value].count : tens[value / 10].count + (value % 10 > 0 ? ones[value % 10].count : 0)
    }

    private static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    private static let scales = ["", "thousand", "million", "billion", "trillion", "quadrillion"]
    private static let symbols: [Character: Int] = ["%": 7, "&": 3, "+": 4, "$": 7, "€": 5, "£": 6, "@": 2]
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
