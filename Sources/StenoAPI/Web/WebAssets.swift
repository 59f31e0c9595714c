import Crypto
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
                etag: Self.etag(of: data))
        }
        if files.isEmpty, problem == nil { problem = "the web view's static files are missing from \(staticDirectory.path)" }
        self.init(library: library, files: files, problem: problem)
    }

    private init(library: MustacheLibrary, files: [String: StaticFile], problem: String?) {
        self.library = library
        self.files = files
        self.problem = problem
    }

    /// The file's SHA-256, shortened: the same on every server of a deployment, unlike `Hasher`.
    private static func etag(of data: Data) -> String {
        "\"" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
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
