import Foundation
/// SubRip (`.srt`): numbered cues from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, the text, and a blank
/// line between cues.
public struct SRTFormatter: Sendable {
    public var layout: CaptionLayout

    public init(layout: CaptionLayout = CaptionLayout()) {
        self.layout = layout
    }

    public func format(_ transcript: Transcript) -> String {
        let cues = CaptionCueBuilder(layout: layout).cueGroups(for: transcript.chapters.map(\.segments)).flatMap { $0 }
        return cues.enumerated().map { number, cue in
            let text = cue.lines.map(Self.sanitize).joined(separator: "\n")
            return "\(number + 1)\n\(CaptionTimestamp.srt(cue.start)) --> \(CaptionTimestamp.srt(cue.end))\n\(text)\n"
        }.joined(separator: "\n")
    }

    /// The arrow is the only sequence that would break a cue apart.
    static func sanitize(_ line: String) -> String {
        // Most lines have no `>`: no Foundation search for them.
        guard line.utf8.contains(UInt8(ascii: ">")) else { return line }
        return line.replacingOccurrences(of: "-->", with: "->")
    }
}
