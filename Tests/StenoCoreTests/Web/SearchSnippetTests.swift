import StenoCore
import Testing

@Suite("Search snippets: ts_headline's marks become parts")
struct SearchSnippetTests {
    let start = String(SearchSnippet.startMark)
    let stop = String(SearchSnippet.stopMark)

    @Test("marked words are parts of their own, the text between them plain")
    func parts() {
        let snippet = SearchSnippet(headline: "in the \(start)harbor\(stop) filled with \(start)boats\(stop)")
        #expect(snippet.parts == [
            .init(text: "in the ", marked: false), .init(text: "harbor", marked: true), .init(text: " filled with ", marked: false),
            .init(text: "boats", marked: true),
        ])
        #expect(snippet.plainText == "in the harbor filled with boats")
    }

    @Test("a mark that never closes marks to the end, a stray close is dropped, and HTML stays text")
    func strayMarks() {
        #expect(SearchSnippet(headline: "a \(start)b").parts == [.init(text: "a ", marked: false), .init(text: "b", marked: true)])
        #expect(SearchSnippet(headline: "a\(stop) <b>").parts == [.init(text: "a", marked: false), .init(text: " <b>", marked: false)])
        #expect(SearchSnippet(headline: "").parts.isEmpty)
    }
}
