import Foundation

/// Keeps everything Steno's processes printed during a test run in `STENO_TEST_OUTPUT_DIR`, so
/// that `scripts/test` can scan the whole run for secrets afterwards (see `TestSecret`).
public enum TestOutputArchive {
    static let directory = ProcessInfo.processInfo.environment["STENO_TEST_OUTPUT_DIR"].flatMap { $0.isEmpty ? nil : $0 }

    /// Writes `text` to a new file in the archive; does nothing when no archive was asked for.
    public static func keep(_ text: String, named name: String) {
        guard let directory else { return }
        let path = "\(directory)/\(name)-\(getpid())-\(UUID().uuidString.prefix(8)).log"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    /// Copies a log file into the archive before its owner deletes it.
    public static func keep(fileAt path: String, named name: String) {
        guard directory != nil, let data = FileManager.default.contents(atPath: path) else { return }
        keep(String(decoding: data, as: UTF8.self), named: name)
    }
}
