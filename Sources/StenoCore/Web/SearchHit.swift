/// A segment that matched a full-text search, with the moment to open the reader at.
public struct SearchHit: Sendable, Equatable {
    public var mediaID: Int64
    public var mediaTitle: String?
    public var language: String?
    /// 1-based.
    public var chapter: Int
    public var chapterTitle: String?
    public var segmentIndex: Int
    public var start: Double
    public var end: Double
    public var snippet: SearchSnippet
    /// Who said it, where the media's speakers were told apart.
    public var speaker: String?

    public init(
        mediaID: Int64, mediaTitle: String?, language: String?, chapter: Int, chapterTitle: String?, segmentIndex: Int, start: Double,
        end: Double, snippet: SearchSnippet, speaker: String? = nil
    ) {
        self.speaker = speaker
        self.mediaID = mediaID
        self.mediaTitle = mediaTitle
        self.language = language
        self.chapter = chapter
        self.chapterTitle = chapterTitle
        self.segmentIndex = segmentIndex
        self.start = start
        self.end = end
        self.snippet = snippet
    }
}
