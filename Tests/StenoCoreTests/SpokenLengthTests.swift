import StenoCore
import Testing

@Suite struct SpokenLengthTests {
    @Test func lettersCountOneEachAndPunctuationNothing() {
        #expect(SpokenLength.letters("Hello,") == 5)
        #expect(SpokenLength.letters("didn't") == 5)
        #expect(SpokenLength.letters("—") == 0)
    }

    @Test(arguments: [
        ("12,000", "twelvethousand"),
        ("9,000", "ninethousand"),
        ("640", "sixhundredforty"),
        ("1987", "nineteeneightyseven"),
        ("1900", "nineteenhundred"),
        ("1905", "nineteenohfive"),
        ("2026", "twentytwentysix"),
        ("2000", "twothousand"),
        ("0", "zero"),
        ("007", "zerozeroseven"),
        ("3.25", "threepointtwofive"),
        ("21st", "twentyfirst"),
        ("4th,", "fourth"),
        ("1,234,567", "onemilliontwohundredthirtyfourthousandfivehundredsixtyseven"),
        ("50%", "fiftypercent"),
        ("$5", "dollarsfive"),
    ])
    func numbersCountAsTheyAreReadAloud(written: String, spoken: String) {
        #expect(SpokenLength.letters(written) == spoken.count)
    }

    @Test func aCommaThatSeparatesNumbersIsNotAThousandsSeparator() {
        // "1,2" and "10,20" are two numbers, not one.
        #expect(SpokenLength.letters("10,20") == "tentwenty".count)
        #expect(SpokenLength.letters("3,") == "three".count)
    }
}
