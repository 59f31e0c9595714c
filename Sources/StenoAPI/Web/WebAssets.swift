import Foundation
import Hummingbird
import Mustache

/// The web view's templates and static files, read once at start from the module's resources
/// (`steno_StenoAPI.resources/web`). Pages are rendered by swift-mustache, which escapes every
/// value for HTML; the static files are Steno's own CSS and JavaScript modules, served with an
/// ETag, so that the pages work offline, with no CDN and no build step.
struct WebAssets: Sendable {
    struct StaticFile: Sendable {
        var bytes: ByteBuffer
        var contentType: String
        var etag: String
    }

    let library: MustacheLibrary
    let files: [String: StaticFile]
    /// Why the assets could not be read, when they could not.
    let problem: String?

    static let templateNames = ["layout", "sign-in", "overview", "media-list", "media", "reader", "search", "confirm", "error"]

    init(bundle: URL?) {
        guard let web = bundle?.appendingPathComponent("web") else {
            self.init(library: MustacheLibrary(), files: [:], problem: "the web view's templates are missing: copy steno_StenoAPI.resources beside steno-api")
            return
        }
        var library = MustacheLibrary()
        var problem: String?
        for name in Self.templateNames {
            let url = web.appendingPathComponent("templates").appendingPathComponent(name + ".mustache")
            do {
                try library.register(try String(contentsOf: url, encoding: .utf8), named: name)
            } catch {
                problem = "the web view's template \(name).mustache cannot be used: \(error)"
            }
        }
        var files: [String: StaticFile] = [:]
        let staticDirectory = web.appendingPathComponent("static")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: staticDirectory.path)) ?? [] {
            guard let data = FileManager.default.contents(atPath: staticDirectory.appendingPathComponent(name).path) else { continue }
            files[name] = StaticFile(
                bytes: ByteBuffer(bytes: data), contentType: Self.contentType(of: name),
                etag: "\"\(String(UInt64(bitPattern: Int64(data.count)), radix: 36))-\(String(UInt(bitPattern: Self.checksum(data)), radix: 36))\"")
        }
        if files.isEmpty, problem == nil { problem = "the web view's static files are missing from \(staticDirectory.path)" }
        self.init(library: library, files: files, problem: problem)
    }

    private init(library: MustacheLibrary, files: [String: StaticFile], problem: String?) {
        self.library = library
        self.files = files
        self.problem = problem
    }

    /// A stable checksum (FNV-1a): `Hasher` is seeded per process, and an ETag must not change
    /// between the servers of one deployment.
    private static func checksum(_ data: Data) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash)
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }

    func render(_ template: String, _ view: Any) -> String? {
        library.render(view, withTemplate: template)
    }
}
