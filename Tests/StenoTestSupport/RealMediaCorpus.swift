public import Foundation

/// The optional corpus of real-world media (files from the wild with their quirks: Nero and ID3
/// chapters, bad Xing headers, ALAC, WMA, Opus, Matroska). A clone from a git host has none, so
/// the tests that read it are cancelled (`Fixtures.shared` in StenoMediaTests), which Swift
/// Testing reports as skipped with the notice below, and every other test gets its media from
/// `scripts/make-fixtures`. This module does not import Testing: it is a library target, which
/// `swift build` builds without the test search paths.
///
/// `STENO_REAL_MEDIA_DIR` names the corpus; without it, `../shared/media` beside the package is
/// used when it exists. A variable that names a missing folder is a mistake, not an absence: the
/// tests then fail, so that a CI run that means to read the corpus cannot skip it quietly.
public enum RealMediaCorpus {
    public static let variable = "STENO_REAL_MEDIA_DIR"

    /// The corpus folder, or nil when there is none.
    public static let directory: URL? = {
        if let configured = ProcessInfo.processInfo.environment[variable], !configured.isEmpty {
            return URL(fileURLWithPath: configured).standardizedFileURL
        }
        let beside = PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared/media").standardizedFileURL
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: beside.path, isDirectory: &isDirectory) && isDirectory.boolValue ? beside : nil
    }()

    public static var isAvailable: Bool { directory != nil }

    public static let absentNotice =
        "the real-media corpus is absent: set \(variable) to its folder (../shared/media is used when it exists)"

    /// The paths of corpus files that exist; none without a corpus. For lists that test every
    /// file they are given and take the corpus's files as extras.
    public static func paths(_ names: [String]) -> [String] {
        guard let directory else { return [] }
        return names.map { directory.appendingPathComponent($0).path }.filter { FileManager.default.fileExists(atPath: $0) }
    }
}
