import Foundation
import Hummingbird
import StenoCore
import StenoInfrastructure
import StenoStore

/// The routes an operator's tools read: health and readiness, metrics, the API's own
/// description, the fleet's workers and the operations report.
struct OperationsRoutes: Sendable {
    let store: AdminStore
    let metrics: APIMetrics
    let clock: any MonotonicClock
    /// Whether the database answers with this release's schema.
    let databaseReady: @Sendable () async -> Bool

    var routes: [APIRoute] {
        [
            .open(.get, "/healthz") { _, _ in Self.text("ok\n") },
            .open(.get, "/readyz") { _, _ in
                let ready = await databaseReady()
                return Self.text(ready ? "ready\n" : "database unreachable or its schema is outdated\n", status: ready ? .ok : .serviceUnavailable)
            },
            .open(.get, "/metrics") { _, _ in Self.text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8") },
            .open(.get, "/openapi.yaml") { _, _ in Self.text(OpenAPIDocument.yaml, contentType: "application/yaml; charset=utf-8") },
            .keyed(.get, "/v1/workers", workers),
            .keyed(.get, "/v1/report", report),
        ]
    }

    static func text(_ text: String, status: HTTPResponse.Status = .ok, contentType: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

extension OperationsRoutes {
    func workers(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        return try APIJSON.response(["workers": try await store.workers()])
    }

    /// `GET /v1/report?since=24h`: the operations report `steno report` prints.
    func report(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let since = request.uri.queryParameters["since"].map(String.init) ?? "24h"
        guard let start = SinceParser.parse(since, now: clock.date) else {
            throw APIError.badRequest("since must be \(SinceParser.help)", field: "since")
        }
        return try APIJSON.response(try await store.report(since: start))
    }

}
