import Foundation
import Hummingbird
import Logging
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore

/// One route: its method and path as `openapi.yaml` writes them, whether it needs a key, and
/// its handler. The router is built from this list, and so is every 405.
struct APIRoute: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var needsKey: Bool
    var handler: @Sendable (Request, APIRequestContext) async throws -> Response
}

extension APIRoute {
    /// A route anyone may call.
    static func open(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response) -> APIRoute {
        APIRoute(method: method, path: path, needsKey: false, handler: handler)
    }

    /// A route behind an API key.
    static func keyed(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response) -> APIRoute {
        APIRoute(method: method, path: path, needsKey: true, handler: handler)
    }
}

extension APIServer {
    /// Every route, from the groups that hold what their handlers use; `openapi.yaml` describes
    /// the same set (`OpenAPIDocumentTests` compares them).
    func routes() -> [APIRoute] {
        operations.routes + media.routes + speakers.routes + tenants.routes + events.routes + openAI.routes
    }

    func makeRouter() -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorAnswerMiddleware(logger: logger))
        let keyed = router.group().add(middleware: authenticator)
        let table = routes()
        for route in table {
            if route.needsKey {
                keyed.on(RouterPath(route.path), method: route.method, use: route.handler)
            } else {
                router.on(RouterPath(route.path), method: route.method, use: route.handler)
            }
        }
        web.add(to: router)
        // A known path asked with another method is 405 with the methods it has, not 404.
        let methodsByPath = Dictionary(grouping: table, by: \.path).mapValues { $0.map(\.method) }
        for (path, methods) in methodsByPath {
            let allowed = methods.map(\.rawValue).sorted().joined(separator: ", ")
            // HEAD is answered for every GET route by Hummingbird; elsewhere it is refused too.
            let refused = Self.otherMethods + (methods.contains(.get) ? [] : [.head])
            for method in refused where !methods.contains(method) {
                router.on(RouterPath(path), method: method) { _, _ -> Response in
                    throw APIError(.methodNotAllowed, code: "method_not_allowed", "\(path) answers \(allowed) only", allow: allowed)
                }
            }
        }
        return router
    }

    static let otherMethods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .options, .trace, .connect, HTTPRequest.Method("QUERY")!]
}

/// Turns the store's and the database's errors into answers: an `AdminError` keeps its code and
/// hint, a lost database is 503 with `Retry-After`, and anything else is a 500 whose details go
/// to the log only.
struct ErrorAnswerMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            throw Self.answer(for: error, context: context)
        }
    }

    /// The API error an error is answered with (the web view renders the same as a page).
    static func answer(for error: any Error, context: Context) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as any HTTPResponseError:
            // Hummingbird's and NIO's own refusals (a JSON body over the limit, say) in the API's error shape.
            let message = (error as? HTTPError)?.body ?? error.status.reasonPhrase
            let code = error.status == .contentTooLarge ? "body_too_large" : "http_\(error.status.code)"
            return APIError(error.status, code: code, message, hint: error.status == .contentTooLarge ? "a JSON body is at most 1 MiB; send files as multipart/form-data" : nil)
        case let error as AdminError:
            return APIError.from(error)
        case let error as MediaOptions.Problem:
            return APIError.badRequest("\(error.field) \(error.problem)", field: error.field, hint: error.hint)
        case let error as PostgresError where error.isTransient || error.code == .connectionFailed || error.code == .connectionLost:
            context.logger.error("database error", metadata: ["error": "\(error)", "path": "\(context.endpointPath ?? "-")"])
            return APIError(
                .serviceUnavailable, code: "database_unavailable", "the database did not answer; nothing was changed by this request",
                hint: "retry shortly", retryAfter: 5)
        case is CancellationError:
            return APIError(.serviceUnavailable, code: "shutting_down", "the server is stopping", hint: "retry on another instance", retryAfter: 1)
        default:
            context.logger.error(
                "request failed", metadata: ["error": "\(SecretRedactor().redact(String(reflecting: error)))", "path": "\(context.endpointPath ?? "-")"])
            return APIError(.internalServerError, code: "internal", "an unexpected error in steno-api; its log has the details")
        }
    }
}
