import Foundation

/// Writes a transcript in an export format piece by piece, as its segments are read: the
/// output of a 40-hour book never exists whole, in memory or as intermediate copies.
///
/// It is given the transcript's outline first (the media and its chapters, whose segments it
/// ignores), then each chapter's segments in order, in batches of any size, and it appends
/// what it can write to the caller's buffer; `finish` writes the rest. The bytes are those of
/// the whole-transcript formatters (`PlainTextFormatter`, `SRTFormatter`, `WebVTTFormatter`,
/// `TranscriptJSONFormatter`, `PodcastTranscriptFormatter`); `TranscriptEncoderTests` holds
/// them to it.
public struct TranscriptEncoder: Sendable {
    public let format: TranscriptFormat
    public let layout: CaptionLayout
    /// The media and its chapters; their segments are not read.
    public let outline: Transcript

    private let cueBuilder: CaptionCueBuilder
    private let needsHeadings: Bool
    private var started = false
    /// The chapter whose segments come now; -1 before the first.
    private var openChapter = -1
    /// Whether the open chapter wrote any segment (text, cue or JSON object) yet.
    private var chapterWroteSegment = false
    /// Text: whether a block was written (blocks are separated by a blank line).
    private var wroteBlock = false
    /// Captions: one cue held back until the next is known, tagged with its chapter.
    private var cues = CaptionCueSequence<Int>()
    private var cueNumber = 0
    private var lastCueChapter = -1
    /// Podcast: whether a segment was written.
    private var wrotePodcastSegment = false
    /// The speaker of the last text or cue written, to name a speaker where the turn changes.
    private var lastSpeaker: String?

    public init(format: TranscriptFormat, outline: Transcript, layout: CaptionLayout = CaptionLayout()) {
        self.format = format
        self.layout = layout
        self.outline = outline
        self.cueBuilder = CaptionCueBuilder(layout: layout)
        self.needsHeadings = outline.chapters.count > 1 || outline.chapters.contains { $0.title != nil }
    }

    /// Whether the format uses word times: captions time their cues by them, JSON lists them.
    /// Text and podcast transcripts need not read them at all.
    public var readsWords: Bool {
        switch format {
        case .srt, .vtt, .json: true
        case .txt, .podcast: false
        }
    }

    /// Whether the format shows flagged segments (the JSON alone, marked).
    public var readsFlagged: Bool { format == .json }

    /// Whether chapter `index` (in the outline) needs its segments: plain text prints a
    /// chapter's merged text when it has one.
    public func readsSegments(ofChapter index: Int) -> Bool {
        guard format == .txt, outline.speakers == nil else { return true }
        return Self.mergedText(of: outline.chapters[index]) == nil
    }

    /// Appends the output of `segments`, the next of chapter `chapter` (its index in the
    /// outline). Chapters come in order; a chapter may be skipped (no segments).
    public mutating func append(
        _ segments: some Sequence<Transcript.Segment>, chapter: Int, to output: inout String
    ) throws(TranscriptExportError) {
        precondition(chapter >= openChapter && chapter < outline.chapters.count, "chapters come in order")
        try open(chapter, output: &output)
        for segment in segments {
            if segment.flag != nil, !readsFlagged { continue }
            try write(segment, output: &output)
        }
    }

    /// Appends the end of the document.
    public mutating func finish(to output: inout String) throws(TranscriptExportError) {
        try open(outline.chapters.count, output: &output)
        switch format {
        case .txt:
            output += "\n"
        case .srt, .vtt:
            if let last = cues.finish() { writeCue(last.cue, chapter: last.tag, output: &output) }
        case .json:
            output += outline.chapters.isEmpty ? "\n\n  ]" : "\n  ]"
            output += ",\n"
            if let duration = outline.durationSeconds {
                output += "  \"duration_seconds\" : "
                try JSONText.append(duration, to: &output)
                output += ",\n"
            }
            if let language = outline.language { Self.appendLanguage(language, to: &output) }
            output += "  \"media_id\" : "
            JSONText.append(Int(outline.mediaID), to: &output)
            output += ",\n  \"source\" : "
            JSONText.appendQuoted(outline.source, to: &output)
            if let speakers = outline.speakers {
                output += ",\n  \"speakers\" : ["
                for (index, speaker) in speakers.enumerated() {
                    output += index == 0 ? "\n    {\n      \"name\" : " : ",\n    {\n      \"name\" : "
                    JSONText.appendQuoted(speaker.name, to: &output)
                    output += ",\n      \"number\" : "
                    JSONText.append(speaker.number, to: &output)
                    output += ",\n      \"talk_seconds\" : "
                    try JSONText.append((speaker.talkSeconds * 1000).rounded() / 1000, to: &output)
                    output += "\n    }"
                }
                output += speakers.isEmpty ? "\n\n  ]" : "\n  ]"
            }
            if let title = outline.title {
                output += ",\n  \"title\" : "
                JSONText.appendQuoted(title, to: &output)
            }
            output += "\n}\n"
        case .podcast:
            output += wrotePodcastSegment ? "\n  ]\n}\n" : "\n\n  ]\n}\n"
        }
    }

    // MARK: Chapters

    /// Closes the open chapter and opens every chapter up to `chapter` (the outline's count
    /// closes the last one).
    private mutating func open(_ chapter: Int, output: inout String) throws(TranscriptExportError) {
        if !started {
            started = true
            begin(output: &output)
        }
        while openChapter < chapter {
            if openChapter >= 0 { try close(openChapter, output: &output) }
            openChapter += 1
            chapterWroteSegment = false
            if openChapter < outline.chapters.count { try begin(openChapter, output: &output) }
        }
    }

    /// A top-level `"language" : "..."` member and its comma, as the JSON documents write it.
    private static func appendLanguage(_ language: String, to output: inout String) {
        output += "  \"language\" : "
        JSONText.appendQuoted(language, to: &output)
        output += ",\n"
    }

    private mutating func begin(output: inout String) {
        switch format {
        case .txt:
            if let title = outline.title, !title.isEmpty { block(title, output: &output) }
        case .srt:
            break
        case .vtt:
            output += WebVTTFormatter.header(language: outline.captionLanguage)
        case .json:
            output += "{\n  \"chapters\" : ["
        case .podcast:
            output += "{\n  \"version\" : \"1.0.0\",\n"
            if let language = outline.captionLanguage { Self.appendLanguage(language, to: &output) }
            output += "  \"segments\" : ["
        }
    }

    private mutating func begin(_ index: Int, output: inout String) throws(TranscriptExportError) {
        let chapter = outline.chapters[index]
        switch format {
        case .txt:
            if needsHeadings { block(chapter.heading, output: &output) }
            lastSpeaker = nil
            if outline.speakers == nil, let text = Self.mergedText(of: chapter) {
                block(text, output: &output)
                chapterWroteSegment = true
            }
        case .srt, .vtt, .podcast:
            break
        case .json:
            output += index == 0 ? "\n    {\n" : ",\n    {\n"
            output += "      \"end\" : "
            try JSONText.append(chapter.end, to: &output)
            output += ",\n      \"number\" : "
            JSONText.append(chapter.number, to: &output)
            output += ",\n      \"segments\" : ["
        }
    }

    private mutating func close(_ index: Int, output: inout String) throws(TranscriptExportError) {
        let chapter = outline.chapters[index]
        switch format {
        case .txt:
            if !chapterWroteSegment { block("[not transcribed: the chapter is \(chapter.state)]", output: &output) }
        case .srt, .vtt, .podcast:
            break
        case .json:
            output += chapterWroteSegment ? "\n      ]" : "\n\n      ]"
            output += ",\n      \"start\" : "
            try JSONText.append(chapter.start, to: &output)
            output += ",\n      \"state\" : "
            JSONText.appendQuoted(chapter.state.rawValue, to: &output)
            if let text = chapter.text {
                output += ",\n      \"text\" : "
                JSONText.appendQuoted(text, to: &output)
            }
            if let title = chapter.title {
                output += ",\n      \"title\" : "
                JSONText.appendQuoted(title, to: &output)
            }
            output += "\n    }"
        }
    }

    // MARK: Segments

    private mutating func write(_ segment: Transcript.Segment, output: inout String) throws(TranscriptExportError) {
        switch format {
        case .txt:
            guard outline.speakers != nil || Self.mergedText(of: outline.chapters[openChapter]) == nil else { return }
            let text = segment.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { return }
            if let speaker = segment.speaker, speaker != lastSpeaker || !chapterWroteSegment {
                // A turn: a paragraph of its own, led by the speaker's name.
                lastSpeaker = speaker
                if wroteBlock { output += "\n\n" }
                wroteBlock = true
                chapterWroteSegment = true
                output += speaker
                output += ": "
            } else if chapterWroteSegment {
                output += " "
            } else {
                if wroteBlock { output += "\n\n" }
                wroteBlock = true
                chapterWroteSegment = true
            }
            output += text
        case .srt, .vtt:
            for cue in cueBuilder.cues(for: segment) {
                if let final = cues.add(cue, tag: openChapter) { writeCue(final.cue, chapter: final.tag, output: &output) }
            }
        case .json:
            output += chapterWroteSegment ? ",\n        {\n" : "\n        {\n"
            chapterWroteSegment = true
            output += "          \"end\" : "
            try JSONText.append(segment.end, to: &output)
            if let flag = segment.flag {
                output += ",\n          \"flag\" : "
                JSONText.appendQuoted(flag.rawValue, to: &output)
            }
            if let speaker = segment.speaker {
                output += ",\n          \"speaker\" : "
                JSONText.appendQuoted(speaker, to: &output)
            }
            output += ",\n          \"start\" : "
            try JSONText.append(segment.start, to: &output)
            output += ",\n          \"text\" : "
            JSONText.appendQuoted(segment.text, to: &output)
            if let words = segment.words {
                output += ",\n          \"words\" : ["
                for (index, word) in words.enumerated() {
                    output += index == 0 ? "\n            {\n              \"end\" : " : ",\n            {\n              \"end\" : "
                    try JSONText.append(word.end, to: &output)
                    if let speaker = word.speaker {
                        output += ",\n              \"speaker\" : "
                        JSONText.appendQuoted(speaker, to: &output)
                    }
                    output += ",\n              \"start\" : "
                    try JSONText.append(word.start, to: &output)
                    output += ",\n              \"word\" : "
                    JSONText.appendQuoted(word.word, to: &output)
                    output += "\n            }"
                }
                output += words.isEmpty ? "\n\n          ]" : "\n          ]"
            }
            output += "\n        }"
        case .podcast:
            let body = segment.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !body.isEmpty else { return }
            output += wrotePodcastSegment ? ",\n    {\n      \"startTime\" : " : "\n    {\n      \"startTime\" : "
            wrotePodcastSegment = true
            try JSONText.append(PodcastTranscriptFormatter.rounded(segment.start), to: &output)
            output += ",\n      \"endTime\" : "
            try JSONText.append(PodcastTranscriptFormatter.rounded(max(segment.start, segment.end)), to: &output)
            if let speaker = segment.speaker {
                output += ",\n      \"speaker\" : "
                JSONText.appendQuoted(speaker, to: &output)
            }
            output += ",\n      \"body\" : "
            JSONText.appendQuoted(body, to: &output)
            output += "\n    }"
        }
    }

    private mutating func writeCue(_ cue: CaptionCue, chapter: Int, output: inout String) {
        if format == .srt {
            if cueNumber > 0 { output += "\n" }
            cueNumber += 1
            output += String(cueNumber)
            output += "\n"
            output += CaptionTimestamp.srt(cue.start)
            output += " --> "
            output += CaptionTimestamp.srt(cue.end)
            output += "\n"
            // The name before the text where the speaker changes.
            if let speaker = cue.speaker, speaker != lastSpeaker {
                output += SRTFormatter.sanitize(speaker)
                output += ": "
            }
            lastSpeaker = cue.speaker
            for (index, line) in cue.lines.enumerated() {
                if index > 0 { output += "\n" }
                output += SRTFormatter.sanitize(line)
            }
            output += "\n"
        } else {
            if chapter != lastCueChapter, outline.chapters.count > 1 {
                output += "NOTE "
                output += WebVTTFormatter.escape(outline.chapters[chapter].heading)
                output += "\n\n"
            }
            lastCueChapter = chapter
            output += CaptionTimestamp.webVTT(cue.start)
            output += " --> "
            output += CaptionTimestamp.webVTT(cue.end)
            output += "\n"
            if let speaker = cue.speaker {
                // A voice span: players show or style the speaker of every cue.
                output += "<v "
                output += WebVTTFormatter.escape(speaker)
                output += ">"
            }
            for (index, line) in cue.lines.enumerated() {
                if index > 0 { output += "\n" }
                output += WebVTTFormatter.escape(line)
            }
            output += "\n\n"
        }
    }

    // MARK: Text

    private mutating func block(_ text: String, output: inout String) {
        if wroteBlock { output += "\n\n" }
        wroteBlock = true
        output += text
    }

    /// A chapter's merged text, trimmed, when it has any: plain text prints it instead of its segments.
    static func mergedText(of chapter: Transcript.Chapter) -> String? {
        guard let text = chapter.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}

extension TranscriptEncoder {
    /// The whole document of `transcript` at once (its chapters' segments included).
    public static func encode(
        _ transcript: Transcript, format: TranscriptFormat, layout: CaptionLayout = CaptionLayout()
    ) throws(TranscriptExportError) -> String {
        var encoder = TranscriptEncoder(format: format, outline: transcript, layout: layout)
        var output = ""
        for (index, chapter) in transcript.chapters.enumerated() {
            try encoder.append(chapter.segments, chapter: index, to: &output)
        }
        try encoder.finish(to: &output)
        return output
    }
}
