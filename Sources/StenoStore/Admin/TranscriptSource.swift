import StenoCore

/// What an export of a media's transcript reads before its segments: the media and its
/// chapters (`outline`, with no segments), which chapters have any, and their rows' ids, from
/// which `AdminStore.exportTranscript` reads the segments in batches.
public struct TranscriptSource: Sendable {
    /// The media and its chapters; every chapter's `segments` is empty.
    public let outline: Transcript
    /// For each chapter of the outline, whether it has segments (flagged ones included).
    public let chapterHasSegments: [Bool]
    let chapterIDs: [Int64]

    /// The chapters with neither segments nor a merged text: not transcribed yet.
    public var untranscribedChapters: [Transcript.Chapter] {
        zip(outline.chapters, chapterHasSegments).filter { chapter, hasSegments in !hasSegments && (chapter.text ?? "").isEmpty }.map(\.0)
    }
}
