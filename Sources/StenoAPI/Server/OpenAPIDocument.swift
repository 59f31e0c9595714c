import Foundation

/// `openapi.yaml`, the API's contract, as the server serves it at `/openapi.yaml`. It ships as
/// the module's resource, `steno_StenoAPI.resources/openapi.yaml` beside the executable (the
/// image copies it there). Looked up by hand rather than through `Bundle.module`, which stops
/// the process when the bundle is missing; here a missing file is a clear error at start.
enum OpenAPIDocument {
    static let bundleName = "steno_StenoAPI.resources"

    static let yaml: String = {
        guard let bundle = bundleDirectory,
            let text = try? String(contentsOf: bundle.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        else { return missing }
        return text
    }()

    /// The module's resource folder (also the web view's templates and assets), where it is found.
    static let bundleDirectory: URL? = {
        for directory in searchDirectories {
            let url = directory.appendingPathComponent(bundleName)
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("openapi.yaml").path) { return url }
        }
        return nil
    }()

    static let missing = "# openapi.yaml is missing from this installation: copy steno_StenoAPI.resources beside steno-api\n"

    /// Whether the document was found; `steno-api` refuses to start without it.
    static var isPresent: Bool { yaml != missing }

    /// The executable's folder (symbolic links resolved), then the test bundle's.
    private static var searchDirectories: [URL] {
        var directories: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        return directories
    }
}
