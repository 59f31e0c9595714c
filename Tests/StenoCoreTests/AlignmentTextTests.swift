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
        ("1990s", ["nineteen", "ninety", "s"]),
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
        let heard = Self.heard([("it", 10, 10.2), ("was", 10.2, 10.5), ("nineteen", 10.6, 11.0), ("eighteen", 11.0, 11.5), ("the", 11.9, 12.0), ("year", 12.0, 12.4)])
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
