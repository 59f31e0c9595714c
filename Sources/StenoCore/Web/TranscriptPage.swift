import Foundation

/// One window of one chapter's transcript, as the reader shows it: never the whole book, and
/// never more than `TranscriptPage.windowSize` segments of a chapter at once.
public struct TranscriptPage: Sendable, Equatable {
    /// At most this many segments are read and rendered at a time; the reader asks for the next
    /// window as playback or scrolling reaches the end of this one.
    public static let windowSize = 400

    public struct ChapterEntry: Sendable, Equatable {
        /// 1-based.
        public var number: Int
        public var title: String?
        public var start: Double
        public var end: Double
        public var state: ChapterState

        public init(number: Int, title: String?, start: Double, end: Double, state: ChapterState) {
            self.number = number
            self.title = title
            self.start = start
            self.end = end
            self.state = state
        }

        public var heading: String {
            guard let title, !title.trimmingCharacters(in: .whitespaces).isEmpty else { return "Chapter \(number)" }
            return "Chapter \(number): \(title)"
        }
    }

    public struct Segment: Sendable, Equatable {
        /// The segment's place in its chapter, from 0.
        public var index: Int
        public var start: Double
        public var end: Double
        public var text: String
        public var words: [Transcript.Word]?
        public var flag: FlagReason?
        /// The media's speaker number, where speakers were told apart.
        public var speaker: Int?

        public init(
            index: Int, start: Double, end: Double, text: String, words: [Transcript.Word]?, flag: FlagReason?, speaker: Int? = nil
        ) {
            self.speaker = speaker
            self.index = index
            self.start = start
            self.end = end
            self.text = text
            self.words = words
            self.flag = flag
        }
    }

    public var mediaID: Int64
    /// The recording's path (or URL, credentials masked): the reader plays it when the server can.
    public var source: String
    public var title: String?
    public var language: String?
    public var durationSeconds: Double?
    public var chapters: [ChapterEntry]
    /// The chapter shown, 1-based.
    public var chapter: Int
    public var segments: [Segment]
    /// The chapter has segments before the first shown, and after the last.
    public var hasEarlier: Bool
    public var hasLater: Bool
    /// The media's speakers when it has two or more, with their names and talk time.
    public var speakers: [Transcript.Speaker] = []

    public init(
        mediaID: Int64, source: String, title: String?, language: String?, durationSeconds: Double?, chapters: [ChapterEntry], chapter: Int, segments: [Segment],
        hasEarlier: Bool, hasLater: Bool
    ) {
        self.mediaID = mediaID
        self.source = source
        self.title = title
        self.language = language
        self.durationSeconds = durationSeconds
        self.chapters = chapters
        self.chapter = chapter
        self.segments = segments
        self.hasEarlier = hasEarlier
        self.hasLater = hasLater
    }

    public var currentChapter: ChapterEntry? { chapters.first { $0.number == chapter } }

    /// Where a window starts so that the segment at `index` is in it with some context before it.
    public static func windowStart(around index: Int) -> Int {
        max(0, index - windowSize / 8)
    }
}
