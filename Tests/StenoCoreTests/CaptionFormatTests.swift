import Foundation
import StenoCore
import Testing

/// Checks SRT and WebVTT output against the format rules, not against a stored copy of itself.
enum CaptionRules {
    static let srtTime = #"\d{2,}:[0-5]\d:[0-5]\d,\d{3}"#
    static let vttTime = #"\d{2,}:[0-5]\d:[0-5]\d\.\d{3}"#

    struct ParsedCue {
        var identifier: String?
        var start: Double
        var end: Double
        var lines: [String]
    }

    static func seconds(_ text: Substring) -> Double {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "," || $0 == "." }).map { Double($0)! }
        return parts[0] * 3600 + parts[1] * 60 + parts[2] + parts[3] / 1000
    }

    /// Parses SRT strictly: blocks separated by one blank line, a number, a timing line, 1+ text lines.
    static func parseSRT(_ text: String) throws -> [ParsedCue] {
        #expect(text.hasSuffix("\n"))
        #expect(!text.contains("\n\n\n"), "exactly one blank line between cues")
        let blocks = text.trimmingCharacters(in: .newlines).components(separatedBy: "\n\n")
        let timing = try Regex("^(\(srtTime)) --> (\(srtTime))$")
        return try blocks.map { block in
            let lines = block.components(separatedBy: "\n")
            try #require(lines.count >= 3, "a cue has a number, a timing line and text: \(block)")
            let match = try #require(try timing.wholeMatch(in: lines[1]), "timing line \(lines[1])")
            return ParsedCue(
                identifier: lines[0], start: seconds(match.output[1].substring!), end: seconds(match.output[2].substring!),
                lines: Array(lines[2...]))
        }
    }

    static func parseVTT(_ text: String) throws -> [ParsedCue] {
        #expect(text.hasPrefix("WEBVTT\n\n"))
        let timing = try Regex("^(\(vttTime)) --> (\(vttTime))$")
        let blocks = text.dropFirst("WEBVTT\n\n".count).trimmingCharacters(in: .newlines).components(separatedBy: "\n\n")
        return try blocks.filter { !$0.hasPrefix("NOTE") }.map { block in
            let lines = block.components(separatedBy: "\n")
            let match = try #require(try timing.wholeMatch(in: lines[0]), "timing line \(lines[0])")
            try #require(lines.count >= 2, "a cue has text: \(block)")
            return ParsedCue(
                identifier: nil, start: seconds(match.output[1].substring!), end: seconds(match.output[2].substring!),
                lines: lines[1...].map(unescape))
        }
    }

    /// What a viewer sees of a WebVTT line: entities count as the one character they show.
    static func unescape(_ line: String) -> String {
        line.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The rules every caption file must keep, whatever the input.
    static func checkLayout(_ cues: [ParsedCue], maxLine: Int = 42, maxLines: Int = 2) {
        var previousEnd = -1.0
        for cue in cues {
            #expect(cue.end > cue.start, "cue ends after it starts: \(cue)")
            #expect(cue.start >= previousEnd, "cues do not overlap: \(cue)")
            #expect(cue.lines.count <= maxLines, "at most \(maxLines) lines: \(cue.lines)")
            for line in cue.lines {
                #expect(line.count <= maxLine, "at most \(maxLine) characters: \(line)")
                #expect(!line.isEmpty)
            }
            previousEnd = cue.end
        }
    }
}

@Suite("Caption timestamps")
struct CaptionTimestampTests {
    @Test("SRT uses a comma, WebVTT a dot, both with hours, minutes, seconds and milliseconds")
    func syntax() {
        #expect(CaptionTimestamp.srt(0) == "00:00:00,000")
        #expect(CaptionTimestamp.srt(3723.456) == "01:02:03,456")
        #expect(CaptionTimestamp.webVTT(3723.456) == "01:02:03.456")
        #expect(CaptionTimestamp.webVTT(61.5) == "00:01:01.500")
    }

    @Test("rounding carries into seconds instead of printing 1000 milliseconds")
    func rounding() {
        #expect(CaptionTimestamp.srt(59.9996) == "00:01:00,000")
        #expect(CaptionTimestamp.srt(3599.9999) == "01:00:00,000")
        #expect(CaptionTimestamp.srt(0.0004) == "00:00:00,000")
    }

    @Test("recordings longer than 99 hours keep counting hours")
    func longRecordings() {
        #expect(CaptionTimestamp.srt(100 * 3600 + 1) == "100:00:01,000")
    }
}

@Suite("SRT and WebVTT export")
struct CaptionFormatTests {
    static func transcript(_ chapters: [[Transcript.Segment]], titles: [String?]? = nil) -> Transcript {
        Transcript(
            mediaID: 1, title: "Book", source: "/media/book.m4b", language: "en", durationSeconds: 600,
            chapters: chapters.enumerated().map { index, segments in
                Transcript.Chapter(
                    number: index + 1, title: titles?[index], start: segments.first?.start ?? 0, end: segments.last?.end ?? 1,
                    state: .succeeded, text: nil, segments: segments)
            })
    }

    @Test("short segments: one cue each, numbered from 1, exact times")
    func shortSegments() throws {
        let text = SRTFormatter().format(Self.transcript([[
            .init(start: 1.0, end: 2.5, text: "Hello there."),
            .init(start: 2.5, end: 4.25, text: "General Kenobi."),
        ]]))
        #expect(text == "1\n00:00:01,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:02,500 --> 00:00:04,250\nGeneral Kenobi.\n")
        let cues = try CaptionRules.parseSRT(text)
        #expect(cues.map(\.identifier) == ["1", "2"])
    }

    @Test("a long segment without word times is split into cues timed by character share")
    func longSegmentProportional() throws {
        let sentence = (1...40).map { "word\($0)" }.joined(separator: " ")  // 40 words, 270 characters
        let text = SRTFormatter().format(Self.transcript([[.init(start: 10, end: 37, text: sentence)]]))
        let cues = try CaptionRules.parseSRT(text)
        CaptionRules.checkLayout(cues)
        #expect(cues.count >= 4, "270 characters need at least four cues of 84")
        #expect(cues.map(\.identifier) == cues.indices.map { String($0 + 1) })
        #expect(cues.first?.start == 10)
        #expect(abs((cues.last?.end ?? 0) - 37) < 0.002)
        // Every word survives, in order.
        #expect(cues.flatMap { $0.lines }.joined(separator: " ") == sentence)
        // Proportional: each cue's share of the time is its share of the characters, within rounding.
        for cue in cues {
            let characters = Double(cue.lines.joined(separator: " ").count + 1)
            #expect(abs((cue.end - cue.start) - 27 * characters / Double(sentence.count + 1)) < 0.005)
        }
    }

    @Test("word times decide where each cue starts and ends, punctuation kept from the text")
    func wordTimes() throws {
        let spoken = ["Call", "me", "Ishmael", "some", "years", "ago", "never", "mind", "how", "long", "precisely", "having",
                      "little", "or", "no", "money", "in", "my", "purse"]
        let words = spoken.enumerated().map { Transcript.Word(word: $0.element, start: 100 + Double($0.offset), end: 100.5 + Double($0.offset)) }
        let segment = Transcript.Segment(
            start: 100, end: 119, text: "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse",
            words: words)
        let cues = try CaptionRules.parseSRT(SRTFormatter().format(Self.transcript([[segment]])))
        CaptionRules.checkLayout(cues)
        #expect(cues.count >= 2)
        let allWords = cues.flatMap { $0.lines }.joined(separator: " ").split(separator: " ")
        #expect(allWords.count == spoken.count)
        var wordIndex = 0
        for cue in cues {
            let count = cue.lines.joined(separator: " ").split(separator: " ").count
            #expect(cue.start == words[wordIndex].start, "cue starts with its first word")
            let last = words[wordIndex + count - 1]
            let nextStart = wordIndex + count < words.count ? words[wordIndex + count].start : .infinity
            #expect(cue.end == min(last.end, nextStart), "cue ends with its last word")
            wordIndex += count
        }
        #expect(cues[0].lines.joined(separator: " ").hasPrefix("Call me Ishmael."))
    }

    @Test("two-line cues are balanced, and a word longer than a line is cut")
    func balancedLines() throws {
        let text = "The quick brown fox jumps over the lazy dog and keeps running far"
        let cues = CaptionCueBuilder().cues(forSegments: [.init(start: 0, end: 5, text: text)])
        #expect(cues.count == 1)
        #expect(cues[0].lines.count == 2)
        #expect(abs(cues[0].lines[0].count - cues[0].lines[1].count) <= 6)

        let url = "https://example.com/" + String(repeating: "a", count: 80)
        let long = CaptionCueBuilder().cues(forSegments: [.init(start: 0, end: 5, text: url)])
        #expect(long.flatMap(\.lines).allSatisfy { $0.count <= 42 })
        #expect(long.flatMap(\.lines).joined() == url)
    }

    @Test("overlapping segments produce cues that do not overlap; empty segments produce none")
    func overlaps() throws {
        let text = SRTFormatter().format(Self.transcript([[
            .init(start: 0, end: 3, text: "First part."),
            .init(start: 2.5, end: 5, text: "Overlapping --> part."),
            .init(start: 5, end: 5, text: "   "),
            .init(start: 5, end: 5, text: "Zero length."),
        ]]))
        let cues = try CaptionRules.parseSRT(text)
        CaptionRules.checkLayout(cues)
        #expect(cues.count == 3)
        #expect(!text.contains("-->\n") && text.components(separatedBy: "-->").count == 4, "only timing lines hold an arrow")
        #expect(cues[0].end == 2.5)
    }

    @Test("chapters continue the numbering and keep absolute times")
    func chapters() throws {
        let text = SRTFormatter().format(Self.transcript([
            [.init(start: 0, end: 2, text: "One.")],
            [.init(start: 3600, end: 3602, text: "Two.")],
        ]))
        let cues = try CaptionRules.parseSRT(text)
        #expect(cues.map(\.identifier) == ["1", "2"])
        #expect(cues[1].start == 3600)
    }

    @Test("WebVTT: header, dot timestamps, chapter notes, escaped markup")
    func webVTT() throws {
        let transcript = Self.transcript(
            [
                [.init(start: 0, end: 2, text: "Fish & chips <b>now</b> --> later")],
                [.init(start: 65.25, end: 70, text: (1...30).map { "word\($0)" }.joined(separator: " "))],
            ], titles: ["Opening", nil])
        let text = WebVTTFormatter().format(transcript)
        #expect(text.hasPrefix("WEBVTT\n\nNOTE Chapter 1: Opening\n\n00:00:00.000 --> 00:00:02.000\n"))
        #expect(text.contains("Fish &amp; chips &lt;b&gt;now&lt;/b&gt; --&gt; later"))
        #expect(text.contains("NOTE Chapter 2\n\n00:01:05.250 --> "))
        let cues = try CaptionRules.parseVTT(text)
        CaptionRules.checkLayout(cues)
        #expect(cues.count >= 3)
        #expect(text.hasSuffix("\n\n"))
    }

    @Test("a narrower layout is honoured")
    func customLayout() throws {
        let layout = CaptionLayout(maxCharactersPerLine: 20, maxLinesPerCue: 1)
        let text = SRTFormatter(layout: layout).format(Self.transcript([[.init(start: 0, end: 10, text: "a fairly long sentence that needs several short cues to fit")]]))
        CaptionRules.checkLayout(try CaptionRules.parseSRT(text), maxLine: 20, maxLines: 1)
    }
}

@Suite("JSON and text export")
struct TranscriptDocumentFormatTests {
    @Test("JSON has the media, chapters, segments and words with snake_case keys")
    func json() throws {
        let transcript = Transcript(
            mediaID: 7, title: "Talk", source: "/media/talk.mp3", language: nil, durationSeconds: 12,
            chapters: [
                .init(
                    number: 1, title: "Intro", start: 0, end: 12, state: .succeeded, text: "Hi all.",
                    segments: [.init(start: 0.5, end: 1.5, text: "Hi all.", words: [.init(word: "Hi", start: 0.5, end: 0.9), .init(word: "all", start: 1, end: 1.5)])])
            ])
        let output = try TranscriptJSONFormatter().format(transcript)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(object["media_id"] as? Int == 7)
        #expect(object["duration_seconds"] as? Double == 12)
        let chapter = try #require((object["chapters"] as? [[String: Any]])?.first)
        #expect(chapter["number"] as? Int == 1)
        #expect(chapter["title"] as? String == "Intro")
        let segment = try #require((chapter["segments"] as? [[String: Any]])?.first)
        #expect(segment["start"] as? Double == 0.5)
        let words = try #require(segment["words"] as? [[String: Any]])
        #expect(words.map { $0["word"] as? String } == ["Hi", "all"])
        #expect(words[1]["end"] as? Double == 1.5)
        #expect(try JSONDecoder().decode(Transcript.self, from: Data(output.utf8)) == transcript)
    }

    @Test("plain text has the title and chapter headings; a single untitled chapter has none")
    func plainText() {
        let two = Transcript(
            mediaID: 1, title: "Book", source: "/b", language: nil, durationSeconds: nil,
            chapters: [
                .init(number: 1, title: "Opening", start: 0, end: 1, state: .succeeded, text: "It was a dark night.", segments: []),
                .init(number: 2, title: nil, start: 1, end: 2, state: .succeeded, text: nil, segments: [.init(start: 1, end: 2, text: "The end.")]),
                .init(number: 3, title: nil, start: 2, end: 3, state: .transcribing, text: nil, segments: []),
            ])
        #expect(PlainTextFormatter().format(two) == """
            Book

            Chapter 1: Opening

            It was a dark night.

            Chapter 2

            The end.

            Chapter 3

            [not transcribed: the chapter is transcribing]

            """)
        let one = Transcript(
            mediaID: 1, title: nil, source: "/b", language: nil, durationSeconds: nil,
            chapters: [.init(number: 1, title: nil, start: 0, end: 1, state: .succeeded, text: "Only text.", segments: [])])
        #expect(PlainTextFormatter().format(one) == "Only text.\n")
    }

    @Test("the format follows a file's extension")
    func formatFromExtension() {
        #expect(TranscriptFormat(fileExtension: "SRT") == .srt)
        #expect(TranscriptFormat(fileExtension: "vtt") == .vtt)
        #expect(TranscriptFormat(fileExtension: "mp3") == nil)
    }
}
