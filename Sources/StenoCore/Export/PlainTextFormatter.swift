import Foundation

/// Plain text: the title, then each chapter's heading and its text.
///
/// A recording without chapter marks has one untitled chapter; it gets no heading.
public struct PlainTextFormatter: Sendable {
    public init() {}

    public func format(_ transcript: Transcript) -> String {
        var blocks: [String] = []
        if let title = transcript.title, !title.isEmpty {
            blocks.append(title)
        }
        let needsHeadings = transcript.chapters.count > 1 || transcript.chapters.contains { $0.title != nil }
        for chapter in transcript.chapters {
            if needsHeadings {
                blocks.append(chapter.heading)
            }
            blocks.append(text(of: chapter))
        }
        return blocks.joined(separator: "\n\n") + "\n"
    }

    private func text(of chapter: Transcript.Chapter) -> String {
        if let text = chapter.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            return text
        }
        let joined = chapter.segments.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.joined(separator: " ")
        return joined.isEmpty ? "[not transcribed: the chapter is \(chapter.state)]" : joined
    }
}
