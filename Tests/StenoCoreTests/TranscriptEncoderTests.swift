import Foundation
import Testing

@testable import StenoCore

/// The streaming encoder against the whole-transcript formatters it replaced in exports: the
/// same bytes, however the segments are cut into batches.
@Suite("TranscriptEncoder")
struct TranscriptEncoderTests {
    typealias Segment = Transcript.Segment
    typealias Word = Transcript.Word

    /// Four chapters: one with word times (some not matching the text), a flagged segment,
    /// text to escape, non-ASCII text and a segment too long for one cue; one not transcribed;
    /// one with a merged text; one untitled.
    static let book: Transcript = {
        let first: [Segment] = [
            Segment(
                start: 0.1 + 0.2, end: 3.5, text: "Call me Ishmael. Some years ago,",
                words: [Word(word: "Call", start: 0.3, end: 0.6), Word(word: "me", start: 0.6, end: 0.8), Word(word: "ishmael", start: 0.8, end: 1.6),
                        Word(word: "Some", start: 2.0, end: 2.3), Word(word: "years", start: 2.3, end: 2.7), Word(word: "ago", start: 2.7, end: 3.4)]),
            Segment(start: 3.5, end: 4, text: "Thank you for watching.", flag: .outsideSpeech),
            Segment(start: 4, end: 9.25, text: "never mind how long precisely <having> little & \"no\" money --> in my purse, and nothing particular"),
            Segment(start: 9.0, end: 30, text: String(repeating: "a tolerably long sentence without an end ", count: 8), words: []),
            Segment(start: 30, end: 33.000_000_1, text: "Ça commence à Noël — 日本語 😀 e\u{301}té\ttab\\back\u{1}", words: [Word(word: "Ça", start: 30, end: 30.5)]),
            Segment(start: 1e-7, end: 1e-7, text: "   "),
        ]
        let third: [Segment] = (0..<7).map { Segment(start: 100 + Double($0) * 2.5, end: 102 + Double($0) * 2.5, text: "Line \($0) of the third.") }
        let fourth: [Segment] = [Segment(start: 3600.125, end: 3605, text: "The end.", words: [Word(word: "The", start: 3600.125, end: 3600.5)])]
        return Transcript(
            mediaID: 42, title: "Moby-Dick / The Whale", source: "/books/moby.m4b", language: "en", durationSeconds: 3605,
            chapters: [
                .init(number: 1, title: "Loomings", start: 0, end: 60, state: .succeeded, text: nil, segments: first),
                .init(number: 2, title: "The Carpet-Bag", start: 60, end: 100, state: .transcribing, text: nil, segments: []),
                .init(number: 3, title: "The Spouter-Inn", start: 100, end: 3600, state: .succeeded, text: "  The merged text of three.\n", segments: third),
                .init(number: 4, title: nil, start: 3600, end: 3605, state: .succeeded, text: nil, segments: fourth),
            ])
    }()

    static let single = Transcript(
        mediaID: 7, title: nil, source: "talk.mp3", language: nil, durationSeconds: nil,
        chapters: [.init(number: 1, title: nil, start: 0, end: 10, state: .succeeded, text: nil, segments: [Segment(start: 0, end: 2, text: "Hello there.")])])

    /// What the exports wrote before they streamed.
    static func reference(_ transcript: Transcript, _ format: TranscriptFormat) throws -> String {
        switch format {
        case .txt: PlainTextFormatter().format(transcript.withoutFlagged)
        case .srt: SRTFormatter().format(transcript.withoutFlagged)
        case .vtt: WebVTTFormatter().format(transcript.withoutFlagged)
        case .json: try TranscriptJSONFormatter().format(transcript)
        case .podcast: try PodcastTranscriptFormatter().format(transcript.withoutFlagged)
        }
    }

    /// The encoder fed `batch` segments at a time, the untranscribed chapter skipped.
    static func streamed(_ transcript: Transcript, _ format: TranscriptFormat, batch: Int) throws -> String {
        var encoder = TranscriptEncoder(format: format, outline: transcript)
        var output = ""
        for (index, chapter) in transcript.chapters.enumerated() where !chapter.segments.isEmpty && encoder.readsSegments(ofChapter: index) {
            for start in stride(from: 0, to: chapter.segments.count, by: batch) {
                try encoder.append(chapter.segments[start..<min(start + batch, chapter.segments.count)], chapter: index, to: &output)
            }
        }
        try encoder.finish(to: &output)
        return output
    }

    @Test("txt, srt, vtt and json: byte for byte the whole-transcript output, in batches of 1, 2 or all", arguments: [TranscriptFormat.txt, .srt, .vtt, .json])
    func sameBytes(format: TranscriptFormat) throws {
        for transcript in [Self.book, Self.single] {
            let expected = try Self.reference(transcript, format)
            for batch in [1, 2, 1000] {
                #expect(try Self.streamed(transcript, format, batch: batch) == expected, "\(format), batches of \(batch)")
            }
            #expect(try format.render(transcript) == expected)
        }
    }

    @Test("podcast: the same document, its keys in the order of the Podcasting 2.0 example")
    func podcast() throws {
        // JSONEncoder without sorted keys wrote them in an order that changed from one process to the next.
        let streamed = try Self.streamed(Self.book, .podcast, batch: 2)
        let expected = try Self.reference(Self.book, .podcast)
        let parse = { (text: String) in try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary }
        #expect(try parse(streamed) == parse(expected))
        #expect(streamed.hasPrefix("{\n  \"version\" : \"1.0.0\",\n  \"segments\" : [\n    {\n      \"startTime\" : 0.3,\n      \"endTime\" : 3.5,\n      \"body\" : "))
        #expect(streamed.hasSuffix("\n    }\n  ]\n}\n"))
    }

    @Test("a named language: a Language line in the WebVTT header and `language` in the podcast JSON, streamed as the formatters write them")
    func namedLanguage() throws {
        var german = Self.book
        german.captionLanguage = "de"
        let vtt = try Self.streamed(german, .vtt, batch: 2)
        #expect(vtt == (try Self.reference(german, .vtt)))
        #expect(vtt.hasPrefix("WEBVTT\nLanguage: de\n\nNOTE Chapter 1: Loomings\n\n"), "\(vtt.prefix(60))")
        let podcast = try Self.streamed(german, .podcast, batch: 2)
        let parse = { (text: String) in try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary }
        #expect(try parse(podcast) == parse(try Self.reference(german, .podcast)))
        #expect(podcast.hasPrefix("{\n  \"version\" : \"1.0.0\",\n  \"language\" : \"de\",\n  \"segments\" : [\n"))
        // The other formats do not change: txt and srt have no place for it, JSON names `language` already.
        for format in [TranscriptFormat.txt, .srt, .json] {
            #expect(try Self.streamed(german, format, batch: 2) == (try Self.streamed(Self.book, format, batch: 2)), "\(format)")
        }
        // OpenAI's captions keep their shape.
        let openAI = try OpenAITranscriptionFormat.vtt.render(german, words: false)
        #expect(openAI.hasPrefix("WEBVTT\n\n"))
    }

    @Test("an empty outline writes what the formatters wrote of no chapters", arguments: TranscriptFormat.allCases)
    func empty(format: TranscriptFormat) throws {
        let empty = Transcript(mediaID: 1, title: nil, source: "", language: nil, durationSeconds: nil, chapters: [])
        let streamed = try Self.streamed(empty, format, batch: 1)
        if format == .podcast {
            #expect(streamed == "{\n  \"version\" : \"1.0.0\",\n  \"segments\" : [\n\n  ]\n}\n")
        } else {
            #expect(streamed == (try Self.reference(empty, format)))
        }
    }

    @Test("text reads no segments of a chapter with merged text; captions and JSON read word times")
    func whatIsRead() {
        #expect(!TranscriptEncoder(format: .txt, outline: Self.book).readsSegments(ofChapter: 2))
        #expect(TranscriptEncoder(format: .txt, outline: Self.book).readsSegments(ofChapter: 0))
        #expect(TranscriptEncoder(format: .srt, outline: Self.book).readsSegments(ofChapter: 2))
        #expect(TranscriptFormat.allCases.filter { TranscriptEncoder(format: $0, outline: Self.book).readsWords } == [.srt, .vtt, .json])
        #expect(TranscriptFormat.allCases.filter { TranscriptEncoder(format: $0, outline: Self.book).readsFlagged } == [.json])
    }

    @Test("a time JSON cannot hold is an error, as it was for JSONEncoder")
    func nonFinite() {
        var transcript = Self.single
        transcript.chapters[0].segments[0].end = .infinity
        #expect(throws: TranscriptExportError.nonFiniteNumber) { try Self.streamed(transcript, .json, batch: 1) }
        #expect(throws: (any Error).self) { try Self.reference(transcript, .json) }
    }

    @Test("numbers and strings as JSONEncoder writes them")
    func jsonText() throws {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 1, 100, 1e15, 1e16, 1e-7, 2.5e-5, 0.1 + 0.2, 123_456_789.125, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        for _ in 0..<2000 {
            values.append(Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF))
            values.append(Double.random(in: 0..<150_000).rounded(toPlaces: Int.random(in: 0...6)))
        }
        for value in values {
            var written = ""
            try JSONText.append(value, to: &written)
            #expect(written == String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        for text in ["", "plain", "a/b", "\"quoted\" \\ back", "\n\r\t\u{8}\u{c}\u{0}\u{1b}\u{1f}\u{7f}", "é 日本 😀 \u{2028}"] {
            var written = ""
            JSONText.appendQuoted(text, to: &written)
            #expect(written == String(decoding: try encoder.encode(text), as: UTF8.self))
        }
    }

    @Test("word times: PostgreSQL's jsonb text read directly, anything else as JSONDecoder reads it")
    func wordTimes() throws {
        let printed = #"[{"end": 0.35, "word": "the", "start": 0.0}, {"end": 1E+2, "word": "café", "start": -0.5e-3}]"#
        #expect(WordTimesJSON.fastDecode(printed) == [Word(word: "the", start: 0, end: 0.35), Word(word: "café", start: -0.0005, end: 100)])
        #expect(try WordTimesJSON.decode("[]") == [])
        for fallback in [#"[{"word": "a\"b", "start": 1, "end": 2}]"#, #"[{"word": "a", "start": 1, "end": 2, "p": 0.9}]"#] {
            #expect(WordTimesJSON.fastDecode(fallback) == nil)
            #expect(try WordTimesJSON.decode(fallback) == (try JSONDecoder().decode([Word].self, from: Data(fallback.utf8))))
        }
        for malformed in [#"[{"word": "a", "start": 1}]"#, #"[{"word": "a", "start": 01, "end": 2}]"#, "{}", "[", #"[{"word": 1, "start": 1, "end": 2}]"#] {
            #expect(WordTimesJSON.fastDecode(malformed) == nil)
            #expect(throws: (any Error).self) { try WordTimesJSON.decode(malformed) }
        }
    }

    @Test("caption words and keys: the ASCII byte paths agree with the Unicode ones")
    func asciiPaths() {
        let alphabet = Array("abcXYZ019 ,.'!?-\t\n\r\u{b}\u{c}\"")
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...30)).map { _ in alphabet.randomElement()! })
            #expect(CaptionCueBuilder.words(of: text) == text.split(whereSeparator: \.isWhitespace).map(String.init), "\(text.debugDescription)")
            #expect(CaptionCueBuilder.comparable(text) == String(text.lowercased().filter { $0.isLetter || $0.isNumber }))
        }
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
