public import Foundation

/// Paths inside the repository, found from this file's own location.
public enum PackageRoot {
    public static let url: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // StenoTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    public static var migrations: URL { url.appendingPathComponent("migrations") }
    public static var scripts: URL { url.appendingPathComponent("scripts") }

    /// A built product, such as the `steno` executable, next to the test bundle.
    public static func product(_ name: String) -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        var directory = bundle.deletingLastPathComponent()
        // `swift test` runs `<build dir>/stenoPackageTests.xctest`; products sit beside it.
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            directory = url.appendingPathComponent(".build/debug")
        }
        return directory.appendingPathComponent(name)
    }
}
