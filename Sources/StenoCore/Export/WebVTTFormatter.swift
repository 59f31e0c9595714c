import Foundation
/// WebVTT (`.vtt`): the `WEBVTT` header, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm` with their text,
/// a blank line after each. Each chapter starts with a `NOTE` naming it.
public struct WebVTTFormatter: Sendable {
    public var layout: CaptionLayout

    public init(layout: CaptionLayout = CaptionLayout()) {
        self.layout = layout
    }

    public func format(_ transcript: Transcript) -> String {
        let groups = CaptionCueBuilder(layout: layout).cueGroups(for: transcript.chapters.map(\.segments))
        var output = Self.header(language: transcript.captionLanguage)
        for (chapter, cues) in zip(transcript.chapters, groups) where !cues.isEmpty {
            if transcript.chapters.count > 1 {
                output += "NOTE \(Self.escape(chapter.heading))\n\n"
            }
            for cue in cues {
                output += "\(CaptionTimestamp.webVTT(cue.start)) --> \(CaptionTimestamp.webVTT(cue.end))\n"
                output += cue.lines.map(Self.escape).joined(separator: "\n") + "\n\n"
            }
        }
        return output
    }

    /// `WEBVTT`, and a `Language:` line (as YouTube's and HLS captions carry it) when the
    /// language is named; a parser ignores header lines it does not know.
    static func header(language: String?) -> String {
        guard let language, !language.isEmpty else { return "WEBVTT\n\n" }
        return "WEBVTT\nLanguage: \(escape(language))\n\n"
    }

    /// WebVTT text is markup: `&`, `<` and `>` must be escaped, which also removes any `-->`.
    static func escape(_ text: String) -> String {
        // Most text has none of the three: no Foundation search for it.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else { return text }
        return text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
