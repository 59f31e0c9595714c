import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StenoCore
import StenoInfrastructure
import StenoObjectStore
import StenoStore

/// The web view: pages and their forms under a session cookie, the sign-in page and the static
/// files. They hold the store, the keys and sessions of signing in, the templates, and the media
/// and event routes whose work the pages share.
struct WebRoutes: Sendable {
    let store: AdminStore
    let keys: KeyStore
    let sessions: SessionStore
    let webAuthenticator: WebSessionAuthenticator
    let assets: WebAssets
    let metrics: APIMetrics
    let media: MediaRoutes
    let eventRoutes: EventRoutes
    let sessionLifetime: Duration
    /// The object store recordings may be in: the reader plays them through short-lived links.
    let objects: ObjectStore?
}

extension WebRoutes {
    /// The web view's routes, beside the API's: pages and their forms under a session cookie
    /// (`WebSessionAuthenticator`), and the sign-in page and static files without one. They are
    /// not part of `openapi.yaml`, which describes the API for programs.
    func add(to router: Router<APIRequestContext>) {
        let open = router.group().add(middleware: WebErrorMiddleware(assets: assets))
        open.get("/sign-in", use: signInPage)
        open.post("/sign-in", use: signIn)
        open.get("/static/{file}", use: staticFile)

        // The error pages twice: outside the session check for its own failures, and inside it so
        // that a page's error is shown in the signed-in frame.
        let pages = router.group().add(middleware: WebErrorMiddleware(assets: assets)).add(middleware: webAuthenticator)
            .add(middleware: WebErrorMiddleware(assets: assets))
        pages.get("/", use: overviewPage)
        pages.get("/media", use: mediaListPage)
        pages.get("/media/{id}", use: mediaPage)
        pages.get("/media/{id}/read", use: readerPage)
        pages.get("/media/{id}/audio", use: audio)
        pages.get("/media/{id}/download", use: download)
        pages.get("/search", use: searchPage)
        pages.get("/confirm", use: confirmPage)
        pages.get("/events", use: eventRoutes.events)
        pages.post("/media/{id}/{action}", use: mediaAction)
        pages.post("/failures/{action}", use: failuresAction)
        pages.post("/sign-out", use: signOut)
    }

    /// Renders a page; a template that fails to render is a server fault, told as one. With
    /// `timedSince`, the page says how long the server spent on it, rendering included
    /// (`Server-Timing: app;dur=12.3`), which the browser's developer tools and `bench/web` read.
    func page(
        _ template: String, _ view: Any, status: HTTPResponse.Status = .ok, timedSince start: ContinuousClock.Instant? = nil
    ) throws -> Response {
        if let problem = assets.problem {
            throw APIError(.internalServerError, code: "web_assets_missing", problem)
        }
        guard let html = assets.render(template, view) else {
            throw APIError(.internalServerError, code: "template_missing", "the web view's template \(template) is missing")
        }
        var headers: HTTPFields = [:]
        if let start {
            headers[HTTPField.Name("Server-Timing")!] = String(format: "app;dur=%.1f", (ContinuousClock.now - start).seconds * 1000)
        }
        return WebPages.html(html, status: status, headers: headers)
    }

    func staticFile(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard let name = context.parameters.get("file"), let file = assets.files[name] else {
            throw APIError.notFound("there is no such file")
        }
        if request.headers[.ifNoneMatch] == file.etag {
            return Response(status: .notModified, headers: [.eTag: file.etag])
        }
        return Response(
            status: .ok,
            headers: [.contentType: file.contentType, .eTag: file.etag, .cacheControl: "no-cache", HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
            body: ResponseBody(byteBuffer: file.bytes))
    }
}

/// Errors on the web view's routes: a page for a browser that asked for one (what happened and
/// what to do, with the status kept), the API's JSON error for a script's fetch.
struct WebErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let assets: WebAssets

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            var answer = ErrorAnswerMiddleware.answer(for: error, context: context)
            if let error = error as? AdminError { answer.hint = error.hint.map(WebPages.hint) }
            guard request.headers[.accept]?.contains("text/html") ?? false,
                let html = assets.render(
                    "error",
                    ErrorView(
                        chrome: WebChrome(principal: context.principal, session: context.webSession, section: .none), status: Int(answer.status.code),
                        message: answer.message, hint: answer.hint))
            else { throw answer }
            var headers: HTTPFields = [:]
            if let retryAfter = answer.retryAfter { headers[.retryAfter] = String(retryAfter) }
            return WebPages.html(html, status: answer.status, headers: headers)
        }
    }
}
