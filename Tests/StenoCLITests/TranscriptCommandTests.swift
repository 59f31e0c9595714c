import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

@Suite("steno transcript")
struct TranscriptCommandTests {
    static var srtTiming: Regex<AnyRegexOutput> { try! Regex(#"^\d{2,}:[0-5]\d:[0-5]\d,\d{3} --> \d{2,}:[0-5]\d:[0-5]\d,\d{3}$"#) }
    static var vttTiming: Regex<AnyRegexOutput> { try! Regex(#"^\d{2,}:[0-5]\d:[0-5]\d\.\d{3} --> \d{2,}:[0-5]\d:[0-5]\d\.\d{3}$"#) }

    /// Two chapters; the second has a long segment with word times and one without.
    static func book() -> TestMediaBuilder.Media {
        let words = "It was the best of times it was the worst of times it was the age of wisdom it was the age of foolishness"
            .split(separator: " ").enumerated().map { TestMediaBuilder.Word(String($0.element), 3600 + Double($0.offset) * 0.4, 3600.3 + Double($0.offset) * 0.4) }
        return .init(
            "/media/two-cities.m4b", title: "A Tale of Two Cities", state: "succeeded", chapters: [
                .init("Preface", 0, 3600, text: "A short preface.", chunks: [.init(0, 3600)], segments: [.init(1.5, 4.25, "A short preface.")]),
                .init("The Period", 3600, 7200, text: "It was the best of times...", chunks: [.init(3600, 7200)], segments: [
                    .init(3600, 3610, "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness.",
                          words: words),
                    .init(3610, 3640, String(repeating: "Another sentence without word times follows here. ", count: 6)),
                ]),
            ])
    }

    @Test("SRT to a file: numbered cues, comma timestamps, at most 2 lines of 42 characters, absolute times")
    func srtFile() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(Self.book(), into: client)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-\(UUID().uuidString).srt").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let result = try await database.steno(["transcript", String(media.mediaID), "-o", path])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
            let srt = try String(contentsOfFile: path, encoding: .utf8)
            let blocks = srt.trimmingCharacters(in: .newlines).components(separatedBy: "\n\n")
            #expect(blocks.count >= 7)
            for (index, block) in blocks.enumerated() {
                let lines = block.components(separatedBy: "\n")
                #expect(lines[0] == String(index + 1))
                #expect(try Self.srtTiming.wholeMatch(in: lines[1]) != nil, "\(lines[1])")
                #expect(lines.count >= 3, "number, timing, text")
                #expect(lines.dropFirst(2).allSatisfy { !$0.isEmpty && $0.count <= 42 }, "\(lines)")
                #expect(lines.count <= 4, "number, timing, at most two lines")
            }
            #expect(blocks[0] == "1\n00:00:01,500 --> 00:00:04,250\nA short preface.")
            #expect(blocks[1].hasPrefix("2\n01:00:00,000 --> "), "the second chapter keeps the recording's clock")
        }
    }

    @Test("WebVTT, JSON and text to standard output; --chapter exports one chapter")
    func otherFormats() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(Self.book(), into: client)
            let id = String(media.mediaID)

            let vtt = try await database.steno(["transcript", id, "--format", "vtt"])
            #expect(vtt.status == 0, "\(vtt.standardError)")
            #expect(vtt.standardOutput.hasPrefix("WEBVTT\n\nNOTE Chapter 1: Preface\n\n00:00:01.500 --> 00:00:04.250\nA short preface.\n\n"))
            for line in vtt.standardOutput.components(separatedBy: "\n") where line.contains("-->") {
                #expect(try Self.vttTiming.wholeMatch(in: line) != nil, "\(line)")
            }

            let json = try JSONOf.object(try await database.steno(["transcript", id, "--json"]).standardOutput)
            #expect(json["title"] as? String == "A Tale of Two Cities")
            let chapters = try #require(json["chapters"] as? [[String: Any]])
            #expect(chapters.map { $0["title"] as? String } == ["Preface", "The Period"])
            let segment = try #require((chapters[1]["segments"] as? [[String: Any]])?.first)
            #expect(segment["start"] as? Double == 3600)
            let words = try #require(segment["words"] as? [[String: Any]])
            #expect(words.count == 24)
            #expect(words[1]["word"] as? String == "was")
            #expect(abs((words[1]["start"] as? Double ?? 0) - 3600.4) < 1e-9)

            let text = try await database.steno(["transcript", id])
            #expect(text.standardOutput == "A Tale of Two Cities\n\nChapter 1: Preface\n\nA short preface.\n\nChapter 2: The Period\n\nIt was the best of times...\n")

            let one = try await database.steno(["transcript", id, "--chapter", "2", "--format", "srt"])
            #expect(one.status == 0)
            #expect(one.standardOutput.hasPrefix("1\n01:00:00,000 --> "))
            #expect(!one.standardOutput.contains("preface"))
        }
    }

    @Test("--format podcast writes Podcasting 2.0 JSON: version and one segment per sentence, in seconds from the start")
    func podcastFormat() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(Self.book(), into: client)
            let result = try await database.steno(["transcript", String(media.mediaID), "--format", "podcast"])
            #expect(result.status == 0, "\(result.standardError)")
            let document = try JSONOf.object(result.standardOutput)
            #expect(Set(document.keys) == ["version", "segments"])
            #expect(document["version"] as? String == "1.0.0")
            let segments = try #require(document["segments"] as? [[String: Any]])
            #expect(segments.count == 3)
            #expect(segments.allSatisfy { Set($0.keys) == ["startTime", "endTime", "body"] })
            #expect(segments[0]["startTime"] as? Double == 1.5)
            #expect(segments[0]["endTime"] as? Double == 4.25)
            #expect(segments[0]["body"] as? String == "A short preface.")
            #expect(segments[1]["startTime"] as? Double == 3600, "times count from the start of the recording, not the chapter")
            let starts = segments.compactMap { $0["startTime"] as? Double }
            #expect(starts == starts.sorted())
            // The file extension alone does not choose it: .json stays Steno's own JSON.
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try await database.steno(["transcript", String(media.mediaID), "-o", path]).status == 0)
            #expect(try JSONOf.object(String(contentsOfFile: path, encoding: .utf8))["chapters"] != nil)
        }
    }

    @Test("nothing transcribed yet exits 1 and says so; unknown chapters and media exit 2; a bad format is a usage error")
    func badInput() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let queued = try await TestMediaBuilder.insert(.init("/media/q.mp3", state: "queued"), into: client)
            let none = try await database.steno(["transcript", String(queued.mediaID)])
            #expect(none.status == 1)
            #expect(none.standardError.contains("has no transcript yet (it is queued)"))

            let book = try await TestMediaBuilder.insert(Self.book(), into: client)
            let chapter = try await database.steno(["transcript", String(book.mediaID), "--chapter", "5"])
            #expect(chapter.status == 2)
            #expect(chapter.standardError.contains("has no chapter 5; it has chapters 1 to 2"))
            let unknown = try await database.steno(["transcript", "98765"])
            #expect(unknown.status == 2)
            let format = try await database.steno(["transcript", String(book.mediaID), "--format", "docx"])
            #expect(format.status == 64)
            #expect(format.standardError.contains("--format must be txt, srt, vtt, json or podcast"))
            let unwritable = try await database.steno(["transcript", String(book.mediaID), "-o", "/nonexistent/dir/out.srt"])
            #expect(unwritable.status == 2)
            #expect(unwritable.standardError.contains("cannot write /nonexistent/dir/out.srt"))
        }
    }

    @Test("a partly transcribed media exports its finished chapters and notes the others")
    func partial() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            var media = Self.book()
            media.state = "transcribing"
            media.chapters[1].state = "transcribing"
            media.chapters[1].segments = []
            media.chapters[1].text = nil
            let inserted = try await TestMediaBuilder.insert(media, into: client)
            let result = try await database.steno(["transcript", String(inserted.mediaID), "--format", "srt"])
            #expect(result.status == 0)
            #expect(result.standardOutput == "1\n00:00:01,500 --> 00:00:04,250\nA short preface.\n")
            #expect(result.standardError.contains("1 of 2 chapter(s) have no transcript yet: 2 (transcribing)"))
        }
    }
}
