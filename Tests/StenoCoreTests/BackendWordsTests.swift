import StenoCore
import Testing

@Suite("a backend's words made whole")
struct BackendWordsTests {
    @Test("pieces without a leading space join the word before, when the backend marks word starts with spaces")
    func piecesJoin() {
        let raw: [(word: String, start: Double, end: Double)] = [
            (" It", 0, 0.2), (" cost", 0.2, 0.5), (" 9", 0.5, 0.7), (",000", 0.7, 1.0), (" for", 1.0, 1.1),
            (" twenty", 1.1, 1.4), ("-four", 1.4, 1.8), (" gluten", 1.8, 2.1), ("-free", 2.1, 2.4), (" loaves.", 2.4, 3.0),
        ]
        let words = BackendWords.joined(raw)
        #expect(words.map(\.word) == ["It", "cost", "9,000", "for", "twenty-four", "gluten-free", "loaves."])
        #expect(words[2].start == 0.5 && words[2].end == 1.0)
    }

    @Test("bare words (OpenAI whisper-1) are never joined, and take the punctuation and capitals of the text")
    func bareWordsArePunctuated() {
        let raw: [(word: String, start: Double, end: Double)] = [
            ("he", 0, 0.2), ("answered", 0.2, 0.6), ("no", 0.6, 0.8), ("then", 0.9, 1.1), ("mr", 1.1, 1.3), ("smith", 1.3, 1.6),
            ("left", 1.6, 1.9), ("at", 1.9, 2.0), ("9", 2.0, 2.1), ("pm", 2.1, 2.4),
        ]
        let words = BackendWords.normalized(raw, text: " He answered: \"No.\" Then Mr. Smith left, at 9 p.m.")
        #expect(words.map(\.word) == ["He", "answered:", "\"No.\"", "Then", "Mr.", "Smith", "left,", "at", "9", "p.m."])
        #expect(words.map(\.start) == raw.map(\.start), "times are the words' own")
    }

    @Test("bare words that together spell one token of the text become that word")
    func splitBareWordsAreJoined() {
        let raw: [(word: String, start: Double, end: Double)] = [
            ("at", 0, 0.2), ("half", 0.2, 0.5), ("past", 0.5, 0.8), ("one", 0.8, 1.0), ("o", 1.0, 1.1), ("clock", 1.1, 1.5),
            ("9", 1.6, 1.8), ("000", 1.8, 2.2), ("people", 2.2, 2.6), ("ate", 2.6, 2.8), ("gluten", 2.8, 3.1), ("free", 3.1, 3.4),
            ("bread", 3.4, 3.8),
        ]
        let words = BackendWords.normalized(raw, text: "At half-past one o'clock, 9,000 people ate gluten-free bread.")
        #expect(words.map(\.word) == ["At", "half-past", "one", "o'clock,", "9,000", "people", "ate", "gluten-free", "bread."])
        #expect(words[1].start == 0.2 && words[1].end == 0.8)
        #expect(words[4].start == 1.6 && words[4].end == 2.2)
    }

    @Test("an apostrophe inside a bare word does not pass for the backend's own punctuation")
    func apostropheInsideABareWord() {
        let raw: [(word: String, start: Double, end: Double)] = [("they", 0, 0.2), ("didn't", 0.2, 0.5), ("stay", 0.5, 0.8), ("It", 0.9, 1.0), ("rained", 1.0, 1.4)]
        let words = BackendWords.normalized(raw, text: "They didn't stay. It rained.")
        #expect(words.map(\.word) == ["They", "didn't", "stay.", "It", "rained."])
    }

    @Test("a word the text does not have keeps its own form, and the rest still line up")
    func missingWordKeepsItsForm() {
        let raw: [(word: String, start: Double, end: Double)] = [("the", 0, 1), ("uh", 1, 2), ("harbour", 2, 3), ("was", 3, 4), ("calm", 4, 5)]
        let words = BackendWords.normalized(raw, text: "The harbour was calm.")
        #expect(words.map(\.word) == ["The", "uh", "harbour", "was", "calm."])
    }

    @Test("words that carry punctuation already are left as they are")
    func punctuatedWordsAreKept() {
        let raw: [(word: String, start: Double, end: Double)] = [(" Yes,", 0, 1), (" sir.", 1, 2)]
        #expect(BackendWords.normalized(raw, text: "YES, SIR!").map(\.word) == ["Yes,", "sir."])
    }
}
