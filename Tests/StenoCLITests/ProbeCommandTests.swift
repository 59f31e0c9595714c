import Foundation
import StenoTestSupport
import Testing

/// Runs the built `steno` binary, as a person or a script would.
private func steno(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
    let result = try await StenoProcess.run(arguments)
    return (result.status, result.standardOutput, result.standardError)
}

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private var fixtures: URL {
    ProcessInfo.processInfo.environment["STENO_FIXTURES_DIR"].map { URL(fileURLWithPath: $0) } ?? packageRoot.appendingPathComponent(".fixtures")
}

private func fixture(_ name: String) throws -> String {
    let path = fixtures.appendingPathComponent(name).path
    try #require(FileManager.default.fileExists(atPath: path), "fixture \(name) is missing: run scripts/make-fixtures")
    return path
}

@Suite struct ProbeCommandTests {
    @Test func showsContainerStreamDurationAndChapters() async throws {
        let result = try await steno(["probe", try fixture("book.m4b")])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("aac, 44100 Hz, 2 channels"))
        #expect(result.output.contains("0:00:29.075"))
        #expect(result.output.contains("0:00:10.110 - 0:00:19.430  The Harbour"))
        #expect(result.error.isEmpty, "FFmpeg's own log stays quiet: \(result.error)")
    }

    @Test func jsonHasExactTimes() async throws {
        let result = try await steno(["probe", "--json", try fixture("talk.mkv")])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let chapters = try #require(json["chapters"] as? [[String: Any]])
        #expect(chapters.count == 3)
        #expect((chapters[1]["start"] as? [String: Any])?["exact"] as? String == "1011/100")
        #expect((json["audio"] as? [String: Any])?["codec"] as? String == "vorbis")
        #expect(json["hasVideo"] as? Bool == true)
    }

    @Test(arguments: [
        ("empty.mp3", "empty_file"), ("not-audio.mp3", "not_media_file"),
        ("silent-video.mp4", "no_audio_stream"), ("missing.m4b", "file_not_found"),
    ])
    func badInputExitsWithOneLine(_ name: String, code: String) async throws {
        let path = name == "missing.m4b" ? fixtures.appendingPathComponent(name).path : try fixture(name)
        let result = try await steno(["probe", path])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1, "\(result.error)")
        #expect(lines.first?.hasPrefix("error: media \(code): ") == true, "\(result.error)")
    }
}
