import Testing

@testable import StenoCore

@Suite("AlignmentText and AlignedWords")
struct AlignmentTextTests {
    @Test("written words become the words said for them", arguments: [
        ("Ashby-le-Zouch,", ["ashby", "le", "zouch"]),
        ("Don't", ["don't"]),
        ("\u{2018}Tis", ["tis"]),
        ("1918", ["nineteen", "eighteen"]),
        ("2005", ["two", "thousand", "five"]),
        ("1,250", ["one", "thousand", "two", "hundred", "fifty"]),
        ("3.5", ["three", "point", "five"]),
        ("3.", ["three"]),
        ("1990s", ["nineteen", "nineties"]),
        ("21st", ["twenty", "first"]),
        ("12th,", ["twelfth"]),
        ("5%", ["five", "percent"]),
        ("$5", ["five", "dollars"]),
        ("$1", ["one", "dollar"]),
        ("£3.5", ["three", "point", "five", "pounds"]),
        ("—", []),
        ("Müller", ["müller"]),
    ])
    func spokenForms(written: String, spoken: [String]) {
        #expect(AlignmentText(written).spokenWords == spoken)
    }

    @Test("each written word keeps its punctuation and capitals next to its spoken words")
    func tokensKeepTheirWriting() {
        let text = AlignmentText("Farmers from Ashby-le-Zouch, in 1918.")
        #expect(text.tokens.map(\.text) == ["Farmers", "from", "Ashby-le-Zouch,", "in", "1918."])
        #expect(text.tokens[2].spoken == ["ashby", "le", "zouch"])
    }

    static func heard(_ words: [(String, Double, Double)]) -> [TimedWord] {
        words.map { TimedWord(word: $0.0, start: $0.1, end: $0.2) }
    }

    @Test("a written word takes the span of its spoken words, in the order they were heard")
    func writtenWordsTakeTheirSpokenSpan() throws {
        let text = AlignmentText("It was 1918, the year.")
        let year = try #require(text.tokens[2].units.first?.name)
        let heard = Self.heard([("it", 10, 10.2), ("was", 10.2, 10.5), (year, 10.6, 11.5), ("the", 11.9, 12.0), ("year", 12.0, 12.4)])
        let words = try #require(AlignedWords.timed(text, heard: heard, within: 10...20))
        #expect(words.map(\.word) == ["It", "was", "1918,", "the", "year."])
        #expect(words[2].start == 10.6 && words[2].end == 11.5)
        #expect(words.allSatisfy { !$0.estimated })
    }

    @Test("a repeated word is matched to its own place, not to the first one that reads the same")
    func repeatedWordsInOrder() throws {
        let text = AlignmentText("the Kingsford Gazette and the Kingsford road")
        let heard = Self.heard([
            ("the", 1, 1.1), ("kingsford", 1.1, 1.6), ("gazette", 1.6, 2.1), ("and", 2.3, 2.5), ("the", 2.5, 2.6),
            ("kingsford", 2.6, 3.1), ("road", 3.1, 3.4),
        ])
        let words = try #require(AlignedWords.timed(text, heard: heard, within: 0...5))
        #expect(words[5].word == "Kingsford" && words[5].start == 2.6)
        #expect(words[1].start == 1.1)
    }

    @Test("a word the aligner skipped is laid between the words heard around it and marked estimated")
    func skippedWordsLieBetweenTheirNeighbours() throws {
        let text = AlignmentText("one two three four five")
        let heard = Self.heard([("one", 1, 1.3), ("two", 1.3, 1.6), ("four", 2.4, 2.8), ("five", 2.8, 3.2)])
        let words = try #require(AlignedWords.timed(text, heard: heard, within: 0...10))
        #expect(words[2].word == "three" && words[2].estimated)
        #expect(words[2].start >= 1.6 && words[2].end <= 2.4)
        #expect(words.filter(\.estimated).count == 1)
    }

    @Test("words the aligner did not hear at the text's end stay next to the last word heard, not spread over the silence after it")
    func unheardEndStaysNearTheSpeech() throws {
        let text = AlignmentText("we went home and then slept")
        let heard = Self.heard([("we", 1, 1.2), ("went", 1.2, 1.5), ("home", 1.5, 1.9), ("and", 1.9, 2.0)])
        let words = try #require(AlignedWords.timed(text, heard: heard, within: 0...60))
        #expect(words.last!.word == "slept" && words.last!.estimated)
        #expect(words.last!.end < 4, "\(words.last!)")
    }

    @Test("a number is one unit to the aligner, with each way it is read", arguments: [
        ("1700", [["seventeen", "hundred"], ["one", "thousand", "seven", "hundred"]]),
        ("250", [["two", "hundred", "fifty"], ["two", "hundred", "and", "fifty"]]),
        ("1905", [["nineteen", "oh", "five"], ["one", "thousand", "nine", "hundred", "five"], ["nineteen", "hundred", "and", "five"]]),
        ("1,500", [["one", "thousand", "five", "hundred"], ["fifteen", "hundred"]]),
        ("2005", [["two", "thousand", "five"], ["two", "thousand", "and", "five"], ["twenty", "oh", "five"]]),
        ("0042", [["zero", "zero", "four", "two"], ["oh", "oh", "four", "two"]]),
    ])
    func numberReadings(written: String, readings: [[String]]) throws {
        let units = AlignmentText(written).tokens[0].units
        try #require(units.count == 1, "\(units)")
        #expect(units[0].readings.first == readings.first)
        for reading in readings { #expect(units[0].readings.contains(reading), "\(reading) in \(units[0].readings)") }
        #expect(units[0].readings.count <= NumberWords.mostReadings)
        #expect(AlignmentText("nine").units == [SpokenUnit(word: "nine")], "a word is its own unit")
    }

    @Test("words not heard that start a sentence are said just before the next heard word, not spread over the pause before them")
    func unheardSentenceStartStaysOnItsSpeech() throws {
        let text = AlignmentText("They rested. 9,000 loaves were sold, and the rest kept.")
        let heard = Self.heard([
            ("they", 1, 1.3), ("rested", 1.3, 1.8), ("loaves", 4.6, 5.0), ("were", 5.0, 5.2), ("sold", 5.2, 5.6),
            ("the", 7.6, 7.7), ("rest", 7.7, 8.0), ("kept", 8.0, 8.4),
        ])
        let words = try #require(AlignedWords.timed(text, heard: heard, within: 0...10))
        let number = words[2]
        #expect(number.word == "9,000" && number.estimated)
        // Spread over the pause it started at 1.8, where "rested." ends.
        #expect(number.start > 3.0 && number.end <= 4.6, "\(number)")
        // "and" ends no clause but follows one: it is said before "the", after the pause.
        let and = words[6]
        #expect(and.word == "and" && and.start > 6.5 && and.end <= 7.6, "\(and)")
    }

    @Test("too little of the text heard gives no times at all", arguments: [0, 1, 2])
    func tooLittleHeard(count: Int) {
        let text = AlignmentText("one two three four five six")
        let heard = Self.heard(Array([("one", 1.0, 1.3), ("two", 1.3, 1.6)].prefix(count)))
        #expect(AlignedWords.timed(text, heard: heard, within: 0...10) == nil)
    }

    @Test("text with nothing to say (marks, other scripts' digits) has no times")
    func nothingToSay() {
        #expect(AlignedWords.timed(AlignmentText("— …"), heard: [], within: 0...10) == nil)
    }
}
