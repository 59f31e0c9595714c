/// How much text one subtitle cue may hold on screen.
///
/// The defaults follow common broadcast and platform guidelines (Netflix, BBC): at most
/// 42 characters per line and 2 lines per cue, so that a cue can be read while it is shown.
public struct CaptionLayout: Sendable, Equatable {
    public var maxCharactersPerLine: Int
    public var maxLinesPerCue: Int

    public init(maxCharactersPerLine: Int = 42, maxLinesPerCue: Int = 2) {
        precondition(maxCharactersPerLine >= 10, "a caption line needs room for at least a few words")
        precondition(maxLinesPerCue >= 1, "a cue has at least one line")
        self.maxCharactersPerLine = maxCharactersPerLine
        self.maxLinesPerCue = maxLinesPerCue
    }
}
