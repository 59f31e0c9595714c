public import StenoCore

/// What an export of a media's transcript reads before its segments: the media and its
/// chapters (`outline`, with no segments), their rows' ids and the index of each one's last
/// segment, from which `AdminStore.exportTranscript` reads the segments in batches.
public struct TranscriptSource: Sendable {
    /// The media and its chapters; every chapter's `segments` is empty.
    public let outline: Transcript
    let chapterIDs: [Int64]
    /// For each chapter of the outline, the index of its last segment (flagged ones
    /// included); nil when it has none.
    let lastSegmentIndexes: [Int?]
    /// For each chapter of the outline, how many merges had written its segments: a batch that
    /// reads another count was written by a later merge.
    let merges: [Int]

    /// For each chapter of the outline, whether it has segments (flagged ones included).
    public var chapterHasSegments: [Bool] { lastSegmentIndexes.map { $0 != nil } }

    /// The chapters with neither segments nor a merged text: not transcribed yet.
    public var untranscribedChapters: [Transcript.Chapter] {
        zip(outline.chapters, chapterHasSegments).filter { chapter, hasSegments in !hasSegments && (chapter.text ?? "").isEmpty }.map(\.0)
    }
}
