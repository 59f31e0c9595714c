import Foundation
import StenoCore
import StenoMedia
import Testing

@Suite struct ProbeTests {
    static let fixtureFiles = ["book.m4b", "book.mp3", "talk.mp4", "talk.mkv", "truncated.m4b"]
    static let sharedFiles = [
        "alac.m4a", "bad-xing.mp3", "ep7.m4b", "ep9.m4b", "example.opus", "nero-chapters.m4b",
        "silence-1.wma", "silence-44-s.flac", "simple.mkv", "toc_many_children.mp3",
    ]

    @Test(arguments: fixtureFiles)
    func fixtureChaptersMatchFFprobe(_ name: String) async throws {
        try await compareWithFFprobe(try Fixtures.path(name))
    }

    @Test(arguments: sharedFiles)
    func sharedFileChaptersMatchFFprobe(_ name: String) async throws {
        try await compareWithFFprobe(try Fixtures.shared(name))
    }

    private func compareWithFFprobe(_ path: String) async throws {
        // The headers alone: some of these files hold less audio than they declare.
        let info = try await MediaFile.probe(.file(path: path), verifyingEnd: false)
        let reference = try FFprobeReference(path: path)
        #expect(info.declaredChapters.map(\.start) == reference.declaredChapters.map(\.start))
        #expect(info.declaredChapters.map(\.end) == reference.declaredChapters.map(\.end))
        #expect(info.declaredChapters.map(\.title) == reference.declaredChapters.map(\.title))
        let duration = try reference.duration(ofStream: info.audio.index)
        #expect(info.duration == duration)
        #expect(info.audio.codec == reference.codec(ofStream: info.audio.index))
        #expect(info.chapters == ChapterNormalizer.normalize(reference.declaredChapters, duration: duration))
        // Whatever the marks, the chapters tile the recording.
        #expect(info.chapters.first?.start == .zero)
        #expect(info.chapters.last?.end == info.duration)
        for (left, right) in zip(info.chapters, info.chapters.dropFirst()) {
            #expect(left.end == right.start)
            #expect(left.start < left.end)
        }
    }

    @Test func bookChaptersAreTheKnownOnes() async throws {
        let book = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("book.json")))) as? [String: Any]
        let known = try #require(book?["chapters"] as? [[String: Any]])
        for name in ["book.m4b", "book.mp3", "talk.mp4", "talk.mkv"] {
            let info = try await MediaFile.probe(.file(path: try Fixtures.path(name)))
            #expect(info.chapters.map(\.title) == known.map { $0["title"] as? String }, "\(name)")
            #expect(info.chapters.map(\.start) == known.map { MediaTime(milliseconds: Int64($0["start_ms"] as! Int)) }, "\(name)")
            // The last chapter runs to the stream's end, past the last mark when the encoder padded.
            #expect(info.chapters.dropLast().map(\.end) == known.dropLast().map { MediaTime(milliseconds: Int64($0["end_ms"] as! Int)) }, "\(name)")
        }
    }

    @Test func videoFilesYieldTheirAudioStream() async throws {
        let mp4 = try await MediaFile.probe(.file(path: try Fixtures.path("talk.mp4")))
        #expect(mp4.hasVideo && mp4.audio.codec == "aac" && mp4.audio.index == 1)
        let mkv = try await MediaFile.probe(.file(path: try Fixtures.path("talk.mkv")))
        #expect(mkv.hasVideo && mkv.audio.codec == "vorbis" && mkv.container == "matroska,webm")
        #expect(mkv.chapters.count == 3)
    }

    @Test func realWorldChapterQuirksAreNormalised() async throws {
        let mkv = try await MediaFile.probe(.file(path: try Fixtures.shared("simple.mkv")))
        #expect(mkv.declaredChapters.count == 4)
        #expect(mkv.chapters == [Chapter(index: 0, title: "Intro", start: .zero, end: MediaTime(milliseconds: 1018))])
        #expect(mkv.audio.channels == 6)

        let flac = try await MediaFile.probe(.file(path: try Fixtures.shared("silence-44-s.flac")))
        #expect(flac.chapters.map(\.title) == ["123456789012", nil, nil])
        #expect(flac.chapters.map(\.start) == [.zero, MediaTime(seconds: 1), MediaTime(seconds: 2)])
        #expect(flac.chapters.last?.end == MediaTime(value: 162_496, timeBase: 1, 44100))
        #expect(!flac.hasVideo, "a cover picture is not video")

        let markers = try await MediaFile.probe(.file(path: try Fixtures.shared("toc_many_children.mp3")), verifyingEnd: false)
        #expect(markers.declaredChapters.count == 129)
        #expect(markers.chapters.count == 1 && markers.chapters[0].title == nil)

        let nero = try await MediaFile.probe(.file(path: try Fixtures.shared("nero-chapters.m4b")), verifyingEnd: false)
        #expect(nero.chapters.count == 112)
        #expect(nero.chapters[1].start == MediaTime(value: 175_070_000, timeBase: 1, 10_000_000))

        let opus = try await MediaFile.probe(.file(path: try Fixtures.shared("example.opus")))
        #expect(opus.chapters.count == 1 && opus.audio.codec == "opus")
    }
}
