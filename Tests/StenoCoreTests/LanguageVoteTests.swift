import StenoCore
import Testing

@Suite("one language per media: the vote of the answers, and the names backends give")
struct LanguageVoteTests {
    let vote = LanguageVote()

    @Test("a language settles once it holds 30 s and two thirds of the answered audio")
    func settlesOnEnoughAgreement() {
        #expect(vote.settled(["en": 20], complete: false) == nil, "too little heard")
        #expect(vote.settled(["en": 30], complete: false) == "en")
        #expect(vote.settled(["en": 40, "de": 19], complete: false) == "en", "40 of 59 is over two thirds")
        #expect(vote.settled(["en": 40, "de": 21], complete: false) == nil, "40 of 61 is under two thirds")
        #expect(vote.settled(["en": 200, "de": 20, "fr": 20], complete: false) == "en")
        #expect(vote.settled([:], complete: true) == nil)
    }

    @Test("when every chunk is answered, the most-heard language settles, but not a tie")
    func completeTakesTheMostHeard() {
        #expect(vote.settled(["de": 12], complete: true) == "de")
        #expect(vote.settled(["en": 25, "de": 20], complete: true) == "en")
        #expect(vote.settled(["en": 20, "de": 20], complete: true) == nil)
        #expect(vote.settled(["en": 25, "de": 20], complete: false) == nil)
    }

    @Test("the order of the answers does not matter")
    func orderFree() {
        let a = vote.settled(["en": 50, "de": 10, "fr": 5], complete: false)
        let b = vote.settled(["fr": 5, "de": 10, "en": 50], complete: false)
        #expect(a == b && a == "en")
    }

    @Test("backends' names for a language become its code", arguments: [
        ("english", "en"), ("English", "en"), ("en", "en"), ("en-US", "en"), ("pt_BR", "pt"), ("german", "de"),
        ("castilian", "es"), ("mandarin", "zh"), ("cantonese", "yue"), ("haw", "haw"), (" french ", "fr"),
    ])
    func normalized(_ reported: String, _ code: String) {
        #expect(LanguageCode.normalized(reported) == code)
    }

    @Test("what names no language is not taken for one", arguments: ["", "klingon", "xx", "english please", "e"])
    func unknown(_ reported: String) {
        #expect(LanguageCode.normalized(reported) == nil)
    }
}
