import Foundation
import StenoCore
import StenoInfrastructure

/// The transcript reader: one window of one chapter, the chapter list, the player and downloads.
struct ReaderView: Sendable {
    struct ChapterLink: Sendable {
        var heading: String
        var link: String
        var current: Bool
        var state: String
        var span: String
    }

    struct Word: Sendable {
        var text: String
        var start: String
        var end: String
    }

    struct Segment: Sendable {
        var index: Int
        var anchor: String
        var start: String
        var end: String
        var clock: String
        var link: String
        var text: String
        var words: [Word]?
        var flagged: Bool
        var flagLabel: String?
        var flagExplanation: String?
        /// The speaker's number and name, where the media has two or more.
        var speaker: Int?
        var speakerName: String?
    }

    /// One of the media's speakers: a colour of the palette (by number), the name, talk time,
    /// the filter's checkbox and the form that renames it.
    struct Speaker: Sendable {
        var number: Int
        var name: String
        var colour: Int
        var talk: String
        var share: String
        var renameAction: String
    }

    struct Download: Sendable {
        var label: String
        var link: String
    }

    var chrome: WebChrome
    var mediaID: Int64
    var title: String
    var mediaLink: String
    var heading: String
    var chapterNumber: Int
    var chapterStart: String
    var chapterEnd: String
    var chapters: [ChapterLink]
    var segments: [Segment]
    /// The segments as HTML (`SegmentListHTML`), escaped there.
    var segmentsHTML: String
    var hasSegments: Bool
    var earlierLink: String?
    var laterLink: String?
    var nextFrom: String
    var audioLink: String?
    var audioProblem: String?
    var startAt: String
    var chapterDownloads: [Download]
    var mediaDownloads: [Download]
    var lang: String?
    var speakers: [Speaker]
    var hasSpeakers: Bool
    /// While a chapter is still to come, the numbers are the merges' provisional ones: the
    /// media's final numbering (by first appearance) may change them when it is done.
    var speakersProvisional: Bool
    /// This chapter's reader, where a rename comes back to.
    var readerLink: String

    init(_ page: TranscriptPage, time: Double?, audioProblem: String?, chrome: WebChrome) {
        self.chrome = chrome
        let id = page.mediaID
        mediaID = id
        title = WebPages.title(page.title, mediaID: id)
        mediaLink = "/media/\(id)"
        let current = page.currentChapter
        heading = current?.heading ?? "Chapter \(page.chapter)"
        chapterNumber = page.chapter
        chapterStart = WebPages.seconds(current?.start ?? 0)
        chapterEnd = WebPages.seconds(current?.end ?? 0)
        chapters = page.chapters.map { chapter in
            ChapterLink(
                heading: chapter.heading, link: "/media/\(id)/read?chapter=\(chapter.number)", current: chapter.number == page.chapter,
                state: chapter.state.rawValue,
                span: "\(HumanFormat.duration(chapter.start))–\(HumanFormat.duration(chapter.end))")
        }
        let names = Dictionary(uniqueKeysWithValues: page.speakers.map { ($0.number, $0.name) })
        let total = max(page.speakers.reduce(0) { $0 + $1.talkSeconds }, 0.001)
        speakers = page.speakers.map { speaker in
            Speaker(
                number: speaker.number, name: speaker.name, colour: Self.colour(of: speaker.number), talk: HumanFormat.duration(speaker.talkSeconds),
                share: "\(Int((100 * speaker.talkSeconds / total).rounded())) %", renameAction: "/media/\(id)/speaker-\(speaker.number)")
        }
        hasSpeakers = !speakers.isEmpty
        speakersProvisional = page.chapters.contains { !$0.state.isFinished }
        readerLink = "/media/\(id)/read?chapter=\(page.chapter)"
        segments = page.segments.map { segment in
            Segment(
                index: segment.index, anchor: "s-\(segment.index)", start: WebPages.seconds(segment.start), end: WebPages.seconds(segment.end),
                clock: HumanFormat.duration(segment.start),
                link: "/media/\(id)/read?chapter=\(page.chapter)&t=\(WebPages.seconds(segment.start))#s-\(segment.index)",
                text: segment.text,
                words: segment.words.flatMap { words in
                    words.isEmpty ? nil : words.map { Word(text: $0.word.trimmingCharacters(in: .whitespaces), start: WebPages.seconds($0.start), end: WebPages.seconds($0.end)) }
                },
                flagged: segment.flag != nil, flagLabel: segment.flag.map(Self.label), flagExplanation: segment.flag?.explanation,
                speaker: page.speakers.isEmpty ? nil : segment.speaker, speakerName: names[segment.speaker ?? 0])
        }
        hasSegments = !segments.isEmpty
        segmentsHTML = SegmentListHTML.render(segments)
        let first = page.segments.first?.index ?? 0
        let last = page.segments.last?.index ?? 0
        earlierLink = page.hasEarlier
            ? "/media/\(id)/read?chapter=\(page.chapter)&from=\(max(0, first - TranscriptPage.windowSize))" : nil
        laterLink = page.hasLater ? "/media/\(id)/read?chapter=\(page.chapter)&from=\(last + 1)" : nil
        nextFrom = page.hasLater ? "\(last + 1)" : ""
        self.audioProblem = audioProblem
        audioLink = audioProblem == nil ? "/media/\(id)/audio" : nil
        startAt = WebPages.seconds(time ?? page.segments.first?.start ?? current?.start ?? 0)
        chapterDownloads = TranscriptFormat.allCases.map {
            Download(label: "Chapter \(page.chapter) as \($0.rawValue)", link: "/media/\(id)/download?format=\($0.rawValue)&chapter=\(page.chapter)")
        }
        mediaDownloads = TranscriptFormat.allCases.map {
            Download(label: "Whole media as \($0.rawValue)", link: "/media/\(id)/download?format=\($0.rawValue)")
        }
        lang = page.language
    }

    /// The palette has 8 colours told apart in light and dark themes; more speakers reuse them.
    static func colour(of speaker: Int) -> Int { (speaker - 1) % 8 }

    /// Short enough to sit beside the text; the title attribute carries the full explanation.
    static func label(_ flag: FlagReason) -> String {
        switch flag {
        case .noSpeech: "no speech"
        case .outsideSpeech: "outside detected speech"
        case .knownHallucination: "known invented phrase"
        case .repetition: "repetition loop"
        case .tooFast: "too fast to be speech"
        }
    }
}

/// The search page: the form as sent and a page of hits.
struct SearchView: Sendable {
    struct Hit: Sendable {
        var link: String
        var title: String
        var chapter: String
        var clock: String
        var parts: [Part]
        var speaker: String?
    }

    struct Part: Sendable {
        var text: String
        var marked: Bool
    }

    struct Choice: Sendable {
        var value: String
        var label: String
        var selected: Bool
    }

    var chrome: WebChrome
    var query: String
    /// The speaker filter as sent: a name, or "Speaker 2".
    var speaker: String
    var searched: Bool
    var hits: [Hit]
    var hasHits: Bool
    var languages: [Choice]
    var hasLanguages: Bool
    var moreLink: String?
    var problem: String?
    /// Said when the search matched more segments than it ranks.
    var capped: String?

    static func hit(_ hit: SearchHit) -> Hit {
        let chapter = hit.chapterTitle.map { "Chapter \(hit.chapter): \($0)" } ?? "Chapter \(hit.chapter)"
        return Hit(
            link: "/media/\(hit.mediaID)/read?chapter=\(hit.chapter)&t=\(WebPages.seconds(hit.start))#s-\(hit.segmentIndex)",
            title: WebPages.title(hit.mediaTitle, mediaID: hit.mediaID), chapter: chapter, clock: HumanFormat.duration(hit.start),
            parts: hit.snippet.parts.map { Part(text: $0.text, marked: $0.marked) }, speaker: hit.speaker)
    }
}

/// A page that asks before an action takes effect, with the form that carries it out.
struct ConfirmView: Sendable {
    var chrome: WebChrome
    var question: String
    var consequence: String
    var action: String
    var button: String
    var danger: Bool
    var backLink: String
    var fields: [Field]

    struct Field: Sendable {
        var name: String
        var value: String
    }
}

/// A page for an error: what happened and what to do.
struct ErrorView: Sendable {
    var chrome: WebChrome
    var status: Int
    var message: String
    var hint: String?
}

/// The sign-in page.
struct SignInView: Sendable {
    var chrome: WebChrome
    var token: String
    var next: String
    var problem: String?
}
