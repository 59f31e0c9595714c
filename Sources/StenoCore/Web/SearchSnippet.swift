/// A search hit's text with the matched words marked, as `ts_headline` returns it. The database
/// marks matches with two private-use characters, never HTML, so that the page escapes all of
/// the transcript's text and adds the marks itself.
public struct SearchSnippet: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public var text: String
        public var marked: Bool

        public init(text: String, marked: Bool) {
            self.text = text
            self.marked = marked
        }
    }

    /// `ts_headline`'s `StartSel` and `StopSel`.
    public static let startMark: Character = "\u{E000}"
    public static let stopMark: Character = "\u{E001}"

    public var parts: [Part]

    public init(parts: [Part]) {
        self.parts = parts
    }

    /// Splits a headline at its marks. The marks themselves are dropped wherever they stand, so
    /// that a transcript which happened to contain one cannot open a mark that never closes.
    public init(headline: String) {
        var parts: [Part] = []
        var current = ""
        var marked = false
        func flush() {
            if !current.isEmpty { parts.append(Part(text: current, marked: marked)) }
            current = ""
        }
        for character in headline {
            switch character {
            case Self.startMark:
                flush()
                marked = true
            case Self.stopMark:
                flush()
                marked = false
            default:
                current.append(character)
            }
        }
        flush()
        self.parts = parts
    }

    public var plainText: String { parts.map(\.text).joined() }
}
