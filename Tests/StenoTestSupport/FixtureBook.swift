public import Foundation

/// The audiobook that `scripts/make-fixtures` speaks with flite, and the text of each chapter.
public struct FixtureBook: Sendable, Decodable {
    public struct Chapter: Sendable, Decodable {
        public var title: String
        public var startMilliseconds: Int
        public var endMilliseconds: Int
        public var text: String

        enum CodingKeys: String, CodingKey {
            case title, text
            case startMilliseconds = "start_ms"
            case endMilliseconds = "end_ms"
        }
    }

    public var title: String
    public var chapters: [Chapter]

    /// The fixtures folder: `STENO_FIXTURES_DIR`, or `.fixtures` in the repository.
    public static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["STENO_FIXTURES_DIR"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return PackageRoot.url.appendingPathComponent(".fixtures")
    }

    public static func load() throws -> FixtureBook {
        let url = directory.appendingPathComponent("book.json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestEnvironmentError("\(url.path) is missing: run scripts/make-fixtures (scripts/test does)")
        }
        return try JSONDecoder().decode(FixtureBook.self, from: data)
    }

    public static func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    public var text: String { chapters.map(\.text).joined(separator: " ") }
}
