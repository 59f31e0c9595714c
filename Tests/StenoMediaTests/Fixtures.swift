import Foundation
import StenoTestSupport
import StenoCore
import StenoMedia
import Testing

/// Locates the media the tests read: fixtures made by scripts/make-fixtures and the optional
/// corpus of real-world files (`RealMediaCorpus`).
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var directory: URL {
        if let configured = ProcessInfo.processInfo.environment["STENO_FIXTURES_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        return packageRoot.appendingPathComponent(".fixtures")
    }

    /// The path of a fixture; fails the test with the command to run when it is missing.
    static func path(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try #require(
            FileManager.default.fileExists(atPath: path),
            "fixture \(name) is missing from \(directory.path): run scripts/make-fixtures (or set STENO_FIXTURES_DIR)",
            sourceLocation: sourceLocation)
        return path
    }

    /// A file of the real-media corpus; without the corpus the test (or test case) is skipped.
    static func shared(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard let corpus = RealMediaCorpus.directory else {
            try Test.cancel(Comment(rawValue: RealMediaCorpus.absentNotice), sourceLocation: sourceLocation)
        }
        let path = corpus.appendingPathComponent(name).path
        try #require(
            FileManager.default.fileExists(atPath: path),
            "\(name) is missing from the real-media corpus \(corpus.path) (\(RealMediaCorpus.variable))", sourceLocation: sourceLocation)
        return path
    }

    /// The long file is made only on request; the memory test asks for it.
    static func longFile() throws -> String {
        let path = directory.appendingPathComponent("long-3h.m4a").path
        if !FileManager.default.fileExists(atPath: path) {
            let status = try run(packageRoot.appendingPathComponent("scripts/make-fixtures").path, ["--long", directory.path]).status
            try #require(status == 0, "scripts/make-fixtures --long failed; run it by hand to see why")
        }
        return try Fixtures.path("long-3h.m4a")
    }

    /// Runs a tool (ffprobe, the fixture script) to completion; see `ChildProcess` for why not `Process`.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data, error: Data) {
        let result = try ChildProcess.runBlocking(executable, arguments)
        return (result.status, Data(result.standardOutput.utf8), Data(result.standardError.utf8))
    }
}
