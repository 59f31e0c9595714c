/// How much text one subtitle cue may hold on screen.
///
/// The defaults follow common broadcast and platform guidelines (Netflix, BBC): at most
/// 42 characters per line, 2 lines per cue and 7 seconds on screen, so that a cue can be read
/// while it is shown and does not stay up over what comes after the words.
public struct CaptionLayout: Sendable, Equatable {
    public var maxCharactersPerLine: Int
    public var maxLinesPerCue: Int
    public var maxCueSeconds: Double

    public init(maxCharactersPerLine: Int = 42, maxLinesPerCue: Int = 2, maxCueSeconds: Double = 7) {
        precondition(maxCharactersPerLine >= 10, "a caption line needs room for at least a few words")
        precondition(maxLinesPerCue >= 1, "a cue has at least one line")
        precondition(maxCueSeconds >= 1, "a cue stays up at least a second")
        self.maxCueSeconds = maxCueSeconds
        self.maxCharactersPerLine = maxCharactersPerLine
        self.maxLinesPerCue = maxLinesPerCue
    }
}
