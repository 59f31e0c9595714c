import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

extension TestDatabase {
    /// Runs the built `steno` against this database.
    func steno(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess {
        try await StenoProcess.run(arguments + ["--database-url", configuration.connectionString], environment: environment)
    }
}

enum JSONOf {
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "JSON object: \(text)")
    }

    static func array(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "JSON array: \(text)")
    }
}

/// A folder of small files standing in for recordings; enqueue only checks them, it does not decode them.
struct MediaFolder {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("steno-media-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    @discardableResult
    func file(_ relative: String, bytes: Int = 64) throws -> String {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 7, count: bytes).write(to: url)
        return url.path
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// The library most tests read: one media in each situation, built as a worker would leave it.
enum Library {
    /// Transcribing, 62.5% by audio duration: chapter 1 done (100 s), chapter 2 half its chunk
    /// audio done (200 s), chapter 3 failed with half done (100 s): (100 + 100 + 50) / 400.
    static func transcribing() -> TestMediaBuilder.Media {
        TestMediaBuilder.Media(
            "/media/moby.m4b", title: "Moby Dick", state: "transcribing", chapters: [
                .init("Loomings", 0, 100, chunks: [.init(0, 50, costUSD: 0.01), .init(50, 100, costUSD: 0.01)]),
                .init("The Carpet-Bag", 100, 300, state: "transcribing", chunks: [
                    .init(100, 200, costUSD: 0.02, attempts: 2), .init(200, 300, state: "running"),
                ]),
                .init("The Spouter-Inn", 300, 400, state: "failed", chunks: [
                    .init(300, 350, state: "failed", attempts: 3, errorClass: "permanent",
                          errorMessage: "HTTP 415: unsupported audio format", httpStatus: 415),
                    .init(350, 400, costUSD: 0.01),
                ], errorClass: "permanent", errorMessage: "chunk 1 failed: HTTP 415: unsupported audio format"),
            ])
    }

    static func succeeded(source: String = "/media/talk.mp3", finishedAgo: Double = 120, createdAgo: Double = 1800) -> TestMediaBuilder.Media {
        TestMediaBuilder.Media(
            source, title: "A Talk", state: "succeeded", createdAgo: createdAgo, finishedAgo: finishedAgo, chapters: [
                .init(nil, 0, 30, text: "Hello and welcome. This is a talk.", chunks: [.init(0, 30, costUSD: 0.003, model: "gpt-4o-transcribe")],
                      segments: [.init(0, 2.5, "Hello and welcome."), .init(2.5, 5, "This is a talk.")]),
            ])
    }

    static func failedAtProbe(source: String = "/media/broken.mp3") -> TestMediaBuilder.Media {
        TestMediaBuilder.Media(source, state: "failed", errorClass: "media", errorMessage: "no audio stream in the file")
    }
}
