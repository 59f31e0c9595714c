import StenoCore
import Testing

@Suite("Chapter selection")
struct ChapterSelectionTests {
    @Test("all, first, numbers and ranges; stored as 0-based indexes")
    func parses() throws {
        #expect(try ChapterSelection(parsing: "all") == .all)
        #expect(try ChapterSelection(parsing: "ALL").storedIndexes == nil)
        #expect(try ChapterSelection(parsing: "first").storedIndexes == [0])
        let selection = try ChapterSelection(parsing: "5, 1,3-5")
        #expect(selection == .numbers([1, 3, 4, 5]))
        #expect(selection.storedIndexes == [0, 2, 3, 4])
        #expect(selection.description == "1,3-5")
        #expect(ChapterSelection(storedIndexes: [0, 2, 3, 4]) == selection)
        #expect(ChapterSelection(storedIndexes: nil) == .all)
    }

    @Test("rejects what is not a selection, saying why", arguments: [
        ("", "empty"), ("0", "numbered from 1"), ("5-3", "backwards"), ("1,,2", "not a chapter number"),
        ("a-b", "not a chapter number"), ("1-2-3", "not a chapter number"), ("1-1000000", "beyond"),
    ])
    func rejects(text: String, reason: String) {
        #expect {
            try ChapterSelection(parsing: text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}

@Suite("Failure explanations")
struct FailureExplanationTests {
    @Test("every class has a plain explanation; unknown names pass through")
    func explanations() {
        for failureClass in FailureClass.allCases {
            #expect(!failureClass.explanation.isEmpty)
        }
        #expect(FailureClass.explain("configuration").contains("API key"))
        #expect(FailureClass.explain("mystery") == "mystery")
    }
}
