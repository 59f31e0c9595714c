/// Numbers written in digits as English speaks them: "1918" is "nineteen eighteen" (a year),
/// "250" is "two hundred fifty", "12,000" is "twelve thousand". A number too long to read as
/// one, or with a leading zero ("0042", a phone number), is read digit by digit.
///
/// The aligner hears these words, and `SpokenLength` counts their letters. Other languages'
/// numbers are read with the English words too: the aligner skips what it cannot hear, and a
/// number's time is then taken from the words around it.
enum NumberWords {
    static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
        "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    static let scales = ["", "thousand", "million", "billion", "trillion"]
    /// Digits beyond which a number is read digit by digit.
    static let longestNumber = 15

    /// `grouped`: written with thousands separators ("1,250"), so never a year.
    static func english(_ digits: String, grouped: Bool = false) -> [String] {
        guard digits.count <= longestNumber, !(digits.count > 1 && digits.first == "0"), let value = UInt64(digits) else {
            return digits.compactMap { $0.wholeNumberValue.map { ones[$0] } }
        }
        // Years: 1100 to 1999 and 2010 to 2099 are read in pairs.
        if !grouped, digits.count == 4, (1100...1999).contains(value) || (2010...2099).contains(value) {
            let high = Int(value / 100), low = Int(value % 100)
            return belowHundred(high) + (low == 0 ? ["hundred"] : low < 10 ? ["oh"] + belowHundred(low) : belowHundred(low))
        }
        return cardinal(value)
    }

    /// Every common way of reading the number, `english` first: the cardinal with and without
    /// British "and" ("two hundred and fifty"), a year as a whole number ("one thousand seven
    /// hundred") or in hundreds ("nineteen hundred and five"), round hundreds read as hundreds
    /// ("fifteen hundred" for 1,500), 2001-2009 as "twenty oh five", and "oh" for zero in a
    /// number read digit by digit. At most `mostReadings`, so that a number stays a handful of
    /// paths in the aligner's grammar.
    static func readings(_ digits: String, grouped: Bool = false) -> [[String]] {
        var readings = [english(digits, grouped: grouped)]
        guard digits.count <= longestNumber, !(digits.count > 1 && digits.first == "0"), let value = UInt64(digits) else {
            readings.append(readings[0].map { $0 == "zero" ? "oh" : $0 })
            return unique(readings)
        }
        readings.append(cardinal(value))
        readings.append(cardinal(value, british: true))
        let high = Int(value / 100), low = Int(value % 100)
        if (1100...9999).contains(value), high % 10 != 0 {
            // 1700 "seventeen hundred", 1905 "nineteen hundred and five", 1,500 "fifteen hundred".
            let hundreds = belowHundred(high) + ["hundred"]
            if low == 0 {
                readings.append(hundreds)
            } else if !grouped, digits.count == 4, value < 2000 {
                readings.append(hundreds + ["and"] + belowHundred(low))
                readings.append(hundreds + belowHundred(low))
            }
        }
        if !grouped, digits.count == 4, (2001...2009).contains(value) {
            readings.append(["twenty", "oh", ones[low]])
        }
        return Array(unique(readings).prefix(mostReadings))
    }

    static let mostReadings = 4

    /// The ordinal of a number's reading: "twenty one" is "twenty first", "twelve" "twelfth".
    static func ordinal(_ words: [String]) -> [String] {
        guard let last = words.last else { return words }
        let irregular = ["one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth", "nine": "ninth", "twelve": "twelfth"]
        let spoken = irregular[last] ?? (last.hasSuffix("y") ? String(last.dropLast()) + "ieth" : last + "th")
        return words.dropLast() + [spoken]
    }

    /// The plural of a number's reading, as a decade is said: "nineteen ninety" is "nineteen
    /// nineties", "six" "sixes".
    static func plural(_ words: [String]) -> [String] {
        guard let last = words.last else { return words }
        let spoken = last.hasSuffix("y") ? String(last.dropLast()) + "ies" : last.hasSuffix("x") ? last + "es" : last + "s"
        return words.dropLast() + [spoken]
    }

    private static func unique(_ readings: [[String]]) -> [[String]] {
        var seen = Set<[String]>()
        return readings.filter { seen.insert($0).inserted }
    }

    /// `british`: "and" before the last part below a hundred ("two hundred and fifty",
    /// "one thousand and five").
    static func cardinal(_ value: UInt64, british: Bool = false) -> [String] {
        if value == 0 { return [ones[0]] }
        var words: [String] = []
        var rest = value
        var scale = 0
        while rest > 0 {
            let group = Int(rest % 1000)
            if group > 0 {
                var groupWords = belowThousand(group)
                if british, scale == 0, group % 100 > 0, group >= 100 || value >= 1000 {
                    groupWords.insert("and", at: groupWords.count - belowHundred(group % 100).count)
                }
                words = groupWords + (scale > 0 ? [scales[scale]] : []) + words
            }
            rest /= 1000
            scale += 1
        }
        return words
    }

    static func belowThousand(_ value: Int) -> [String] {
        (value >= 100 ? [ones[value / 100], "hundred"] : []) + (value % 100 > 0 ? belowHundred(value % 100) : [])
    }

    static func belowHundred(_ value: Int) -> [String] {
        if value < 20 { return [ones[value]] }
        return [tens[value / 10]] + (value % 10 == 0 ? [] : [ones[value % 10]])
    }
}
