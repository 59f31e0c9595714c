import StenoCore
import Testing

@Suite("WordErrorRate")
struct WordErrorRateTests {
    @Test("counts substitutions, deletions and insertions against the reference")
    func counts() {
        let substitutedAndInserted = WordErrorRate(reference: "the keeper lit the lamp", hypothesis: "the keeper lit a lamp tonight")
        #expect(substitutedAndInserted.substitutions == 1)
        #expect(substitutedAndInserted.insertions == 1)
        #expect(substitutedAndInserted.deletions == 0)
        #expect(substitutedAndInserted.rate == 0.4)

        let deleted = WordErrorRate(reference: "the keeper lit the lamp", hypothesis: "keeper lit the lamp")
        #expect(deleted.deletions == 1 && deleted.substitutions == 0 && deleted.insertions == 0)
        #expect(deleted.rate == 0.2)
    }

    @Test("ignores case and punctuation, keeps apostrophes inside words")
    func normalisation() {
        #expect(WordErrorRate(reference: "The Harbour, at dawn.", hypothesis: "the harbour at DAWN").rate == 0)
        #expect(WordErrorRate.words("Don't stop -- 'now'!") == ["don't", "stop", "now"])
    }

    @Test("identical and empty texts")
    func edges() {
        #expect(WordErrorRate(reference: "a b c", hypothesis: "a b c").errors == 0)
        #expect(WordErrorRate(reference: "a b c", hypothesis: "").deletions == 3)
        #expect(WordErrorRate(reference: "", hypothesis: "").rate == 0)
    }
}
