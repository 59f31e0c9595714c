import Foundation

/// `openapi.yaml`, the API's contract, as the server serves it at `/openapi.yaml`. It ships as
/// the module's resource (`steno_StenoAPI.resources` beside the executable).
enum OpenAPIDocument {
    static let yaml: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            return "# openapi.yaml is missing from this installation: copy steno_StenoAPI.resources beside steno-api\n"
        }
        return text
    }()

    /// Whether the document was found; `steno-api` refuses to start without it.
    static var isPresent: Bool { !yaml.hasPrefix("# openapi.yaml is missing") }
}
