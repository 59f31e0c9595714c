/// Numbers written in digits as English speaks them, for the aligner: "1918" is "nineteen
/// eighteen" (a year), "250" is "two hundred fifty". Long runs (phone numbers, codes) are read
/// digit by digit. Other languages' numbers are timed with the English words too: the aligner
/// skips what it cannot hear, and a number's time is then taken from the words around it.
enum NumberWords {
    static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
        "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// `grouped`: written with thousands separators ("1,250"), so never a year.
    static func english(_ digits: String, grouped: Bool = false) -> [String] {
        guard digits.count <= 7, let value = Int(digits) else { return digits.map { ones[Int(String($0))!] } }
        if digits.count > 1, digits.first == "0" { return digits.map { ones[Int(String($0))!] } }
        // Years: 1100 to 1999 and 2010 to 2099 are read in pairs.
        if !grouped, digits.count == 4, (1100...1999).contains(value) || (2010...2099).contains(value) {
            let high = value / 100, low = value % 100
            return belowHundred(high) + (low == 0 ? ["hundred"] : low < 10 ? ["oh"] + belowHundred(low) : belowHundred(low))
        }
        return cardinal(value)
    }

    static func cardinal(_ value: Int) -> [String] {
        if value < 100 { return belowHundred(value) }
        if value < 1000 { return belowHundred(value / 100) + ["hundred"] + (value % 100 == 0 ? [] : belowHundred(value % 100)) }
        if value < 1_000_000 { return cardinal(value / 1000) + ["thousand"] + (value % 1000 == 0 ? [] : cardinal(value % 1000)) }
        return cardinal(value / 1_000_000) + ["million"] + (value % 1_000_000 == 0 ? [] : cardinal(value % 1_000_000))
    }

    static func belowHundred(_ value: Int) -> [String] {
        if value < 20 { return [ones[value]] }
        return [tens[value / 10]] + (value % 10 == 0 ? [] : [ones[value % 10]])
    }
}
