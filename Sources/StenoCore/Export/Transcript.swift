import Foundation

/// A media's transcript as the exports see it: chapters in order, each with its timestamped
/// segments. Every time is in seconds on the media's own clock, not the chapter's.
public struct Transcript: Sendable, Equatable, Codable {
    public struct Word: Sendable, Equatable, Codable {
        public var word: String
        public var start: Double
        public var end: Double
        /// Who said it, as exports show it (a name, or "Speaker 2"); nil with fewer than two speakers.
        public var speaker: String?
        /// The media's speaker number, as stored; the store turns it into `speaker`.
        public var speakerNumber: Int?

        public init(word: String, start: Double, end: Double, speaker: String? = nil, speakerNumber: Int? = nil) {
            self.word = word
            self.start = start
            self.end = end
            self.speaker = speaker
            self.speakerNumber = speakerNumber
        }

        enum CodingKeys: String, CodingKey {
            case word, start, end, speaker
        }
    }

    /// One of the media's speakers, as exports list them.
    public struct Speaker: Sendable, Equatable, Codable {
        public var number: Int
        /// The name given (or recognised from a voice profile), else "Speaker N".
        public var name: String
        /// Seconds of speech heard in this voice.
        public var talkSeconds: Double

        public init(number: Int, name: String, talkSeconds: Double) {
            self.number = number
            self.name = name
            self.talkSeconds = talkSeconds
        }

        enum CodingKeys: String, CodingKey {
            case number, name
            case talkSeconds = "talk_seconds"
        }

        /// What a speaker without a name is called.
        public static func defaultName(_ number: Int) -> String { "Speaker \(number)" }
    }

    public struct Segment: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        public var text: String
        /// Word times when the backend gave them.
        public var words: [Word]?
        /// Text the gates held back, with why (`"flag": "outside_speech"` in JSON); nil for the
        /// transcript proper. Only the JSON export shows flagged segments.
        public var flag: FlagReason?
        /// Who said it, as exports show it; nil with fewer than two speakers.
        public var speaker: String?
        /// The other speakers heard at once during it (overlapping speech), as exports name
        /// them; nil where no one else is. Only the JSON export shows it.
        public var overlapping: [String]?

        public init(
            start: Double, end: Double, text: String, words: [Word]? = nil, flag: FlagReason? = nil, speaker: String? = nil,
            overlapping: [String]? = nil
        ) {
            self.speaker = speaker
            self.overlapping = overlapping
            self.flag = flag
            self.start = start
            self.end = end
            self.text = text
            self.words = words
        }
    }

    public struct Chapter: Sendable, Equatable, Codable {
        /// 1-based, as players and `steno status` show it.
        public var number: Int
        public var title: String?
        public var start: Double
        public var end: Double
        public var state: ChapterState
        /// The chapter's full text; `nil` until it is merged.
        public var text: String?
        public var segments: [Segment]

        public init(number: Int, title: String?, start: Double, end: Double, state: ChapterState, text: String?, segments: [Segment]) {
            self.number = number
            self.title = title
            self.start = start
            self.end = end
            self.state = state
            self.text = text
            self.segments = segments
        }

        /// The heading exports print: "Chapter 2: The Storm", or "Chapter 2" without a title.
        public var heading: String {
            guard let title, !title.trimmingCharacters(in: .whitespaces).isEmpty else { return "Chapter \(number)" }
            return "Chapter \(number): \(title)"
        }
    }

    public var mediaID: Int64
    public var title: String?
    public var source: String
    public var language: String?
    public var durationSeconds: Double?
    public var chapters: [Chapter]
    /// The media's speakers when there are two or more; nil otherwise, and the exports then
    /// look as they did before speakers were told apart.
    public var speakers: [Speaker]?
    /// The language the WebVTT header (`Language:`) and the podcast:transcript JSON (`language`)
    /// name: the text's language for media enqueued since migration 0021, nil for those before
    /// (their exports stay as they were) and while it is not known. The JSON export names
    /// `language` in any case.
    public var captionLanguage: String? = nil

    // Spelled out so that the JSON export reads `media_id` and decodes back with a plain decoder.
    enum CodingKeys: String, CodingKey {
        case mediaID = "media_id"
        case title, source, language
        case durationSeconds = "duration_seconds"
        case chapters, speakers
    }

    public init(mediaID: Int64, title: String?, source: String, language: String?, durationSeconds: Double?, chapters: [Chapter]) {
        self.mediaID = mediaID
        self.title = title
        self.source = source
        self.language = language
        self.durationSeconds = durationSeconds
        self.chapters = chapters
    }

    /// Every segment of every chapter, in order.
    public var segments: [Segment] { chapters.flatMap(\.segments) }

    /// The transcript without the text the gates held back: what the text and caption exports show.
    public var withoutFlagged: Transcript {
        var copy = self
        for index in copy.chapters.indices {
            copy.chapters[index].segments.removeAll { $0.flag != nil }
        }
        return copy
    }
}
