import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import StenoTestSupport

@testable import StenoAPI
import NIOFoundationEssentialsCompat

/// steno-api's router in process, through HummingbirdTesting's `.router` mode: a request goes to
/// the router and its middleware with no socket, for the tests of routing and rules (keys,
/// scopes, rates, methods). The tests that need a real socket, a stream or a client's own HTTP
/// use `RunningAPI` and curl.
struct InProcessAPI: Sendable {
    let client: any TestClientProtocol
    /// The owner's session, which makes keys as `steno keys` would.
    let owner: PostgresClient
    let uploadDirectory: String

    var uploadedFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: uploadDirectory)) ?? []).sorted()
    }

    /// A new key of this scope and tenant.
    func key(_ scope: APIScope, tenant: String = "acme") async throws -> String {
        let token = try await KeyStore(client: owner).create(scope: scope, tenant: tenant, name: "test").token.secret
        TestSecret.record(token)
        return token
    }

    static func with<Value: Sendable>(
        clock: any MonotonicClock = .continuous, configure: (inout APIConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (InProcessAPI) async throws -> Value
    ) async throws -> Value {
        try await TestDatabase.with { database in
            let made = try TestAPIServer(served: database, keys: database, clock: clock, configure: configure)
            let outcome: Result<Value, any Error>
            do {
                outcome = .success(
                    try await made.server.makeApplication(onListening: { _ in }).test(.router) { client in
                        try await body(InProcessAPI(client: client, owner: made.owner, uploadDirectory: made.uploadDirectory))
                    })
            } catch {
                outcome = .failure(error)
            }
            await made.close()
            return try outcome.get()
        }
    }

    /// `method path` with the key as a bearer token and the body as a client sends it.
    func request(_ method: String, _ path: String, key: String? = nil, headers: [String: String] = [:], body: HTTP.Body = .none) async throws -> HTTPAnswer {
        var fields = HTTPFields()
        if let key { fields[.authorization] = "Bearer \(key)" }
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        var buffer: ByteBuffer?
        switch body {
        case .none:
            break
        case .json(let text):
            fields[.contentType] = "application/json"
            buffer = ByteBuffer(string: text)
        case .form(let values, let files):
            let boundary = "steno-test-\(UUID().uuidString)"
            fields[.contentType] = "multipart/form-data; boundary=\(boundary)"
            var bytes = ByteBuffer()
            for (name, value) in values {
                bytes.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
            }
            for (name, path) in files {
                let file = URL(fileURLWithPath: path)
                bytes.writeString(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(file.lastPathComponent)\"\r\n"
                        + "Content-Type: application/octet-stream\r\n\r\n")
                bytes.writeBytes(try Data(contentsOf: file))
                bytes.writeString("\r\n")
            }
            bytes.writeString("--\(boundary)--\r\n")
            buffer = bytes
        case .raw(let path, let contentType):
            fields[.contentType] = contentType
            buffer = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: path)))
        case .urlencoded(let values):
            fields[.contentType] = "application/x-www-form-urlencoded"
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            buffer = ByteBuffer(string: values.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&"))
        }
        let response = try await client.executeRequest(uri: path, method: HTTPRequest.Method(method)!, headers: fields, body: buffer)
        var headers: [String: String] = [:]
        var cookies: [String] = []
        for field in response.headers {
            headers[field.name.canonicalName] = field.value
            if field.name == .setCookie { cookies.append(field.value) }
        }
        return HTTPAnswer(status: Int(response.status.code), headers: headers, body: Data(buffer: response.body), setCookies: cookies)
    }
}
