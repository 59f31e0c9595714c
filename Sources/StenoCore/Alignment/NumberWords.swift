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

    static func cardinal(_ value: UInt64) -> [String] {
        if value == 0 { return [ones[0]] }
        var words: [String] = []
        var rest = value
        var scale = 0
        while rest > 0 {
            let group = Int(rest % 1000)
            if group > 0 { words = belowThousand(group) + (scale > 0 ? [scales[scale]] : []) + words }
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
