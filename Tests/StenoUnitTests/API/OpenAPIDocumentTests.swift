import Foundation
import StenoPostgres
@testable import StenoAPI
import StenoTestSupport
import Testing
import Logging
import HTTPTypes

/// `openapi.yaml` and the router describe the same routes.
@Suite("steno-api: openapi.yaml")
struct OpenAPIDocumentTests {
    /// "METHOD /path" for every operation of the document: paths at two spaces, methods at four.
    static func documentedOperations(_ yaml: String) -> Set<String> {
        var operations: Set<String> = []
        var path: String?
        var inPaths = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            if inPaths, let first = line.first, first != " ", first != "#" { inPaths = false }
            guard inPaths else { continue }
            if let match = line.wholeMatch(of: #/  (/[^:]*):\s*/#) {
                path = String(match.1)
            } else if let path, let match = line.wholeMatch(of: #/    (get|post|put|patch|delete|head|options|trace):\s*/#) {
                operations.insert("\(match.1.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test("every route is in openapi.yaml and every operation there is a route")
    func documentMatchesRoutes() throws {
        let server = APIServer(
            configuration: APIConfiguration(), database: PostgresConfiguration(connectionString: "host=/nonexistent"),
            client: PostgresClient(configuration: PostgresConfiguration(connectionString: "host=/nonexistent")), logger: .init(label: "test"))
        let routes = Set(server.routes().map { "\($0.method.rawValue) \($0.path)" })
        let documented = Self.documentedOperations(OpenAPIDocument.yaml)
        #expect(routes.count >= 17)
        #expect(routes.subtracting(documented).isEmpty, "routes missing from openapi.yaml: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "operations in openapi.yaml without a route: \(documented.subtracting(routes).sorted())")
    }

    @Test("the repository's openapi.yaml is the document the server serves")
    func repositoryCopyIsServed() throws {
        let file = PackageRoot.url.appendingPathComponent("openapi.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text == OpenAPIDocument.yaml)
        #expect(OpenAPIDocument.isPresent)
    }
}
