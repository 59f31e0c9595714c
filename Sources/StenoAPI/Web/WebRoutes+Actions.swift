import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StenoCore
import StenoInfrastructure
import StenoStore

extension WebRoutes {
    // MARK: Signing in and out

    func signInPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let query = try WebPages.query(request)
        return try signInForm(next: query["next"], problem: nil, notice: query["did"], request: request)
    }

    private func signInForm(next: String?, problem: String?, notice: String? = nil, status: HTTPResponse.Status = .ok, request: Request) throws -> Response {
        // A browser that already holds a sign-in token keeps it, so that two sign-in tabs do
        // not void each other's form.
        let held = request.cookies[WebCSRF.signInCookie]?.value
        let token = held.flatMap { WebCSRF.isSignInToken($0) ? $0 : nil } ?? WebCSRF.signInToken()
        var response = try page(
            "sign-in",
            SignInView(
                chrome: WebChrome(principal: nil, session: nil, section: .none, notice: WebChrome.notice(for: notice)), token: token,
                next: WebPages.localPath(next) ?? "/", problem: problem),
            status: status)
        response.setCookie(
            Cookie(name: WebCSRF.signInCookie, value: token, maxAge: 3600, path: "/sign-in", secure: Self.isSecure(request), httpOnly: true, sameSite: .strict))
        return response
    }

    /// `POST /sign-in`: the key from the form becomes a session cookie (HttpOnly, SameSite=Strict,
    /// Secure over TLS). The key itself is never stored in the browser.
    func signIn(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let form = try await Self.form(request, context)
        let next = WebPages.localPath(form["next"]) ?? "/"
        guard let expected = request.cookies[WebCSRF.signInCookie]?.value, WebCSRF.constantTimeEqual(form[WebCSRF.fieldName] ?? "", expected) else {
            return try signInForm(next: next, problem: "The sign-in form had expired. Paste the key again.", status: .forbidden, request: request)
        }
        let text = (form["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let token = APIKeyToken(parsing: Substring(text)) else {
            return try signInForm(
                next: next, problem: "That is not a Steno API key: a key starts with stk_ and has 47 characters. An operator makes one with steno keys create.",
                status: .unauthorized, request: request)
        }
        guard let principal = try await keys.principal(for: token) else {
            metrics.recordRefusal("unauthorized")
            return try signInForm(next: next, problem: "That key is unknown or revoked.", status: .unauthorized, request: request)
        }
        let session = try await sessions.create(keyID: principal.keyID, lifetime: sessionLifetime)
        context.logger.info("signed in to the web view", metadata: ["key": "\(principal.prefix)", "tenant": "\(principal.tenant)"])
        var response = WebPages.redirect(to: next)
        response.setCookie(
            Cookie(
                name: WebSessionAuthenticator.cookieName, value: session.secret,
                maxAge: Int(sessionLifetime.components.seconds), path: "/", secure: Self.isSecure(request), httpOnly: true,
                sameSite: .strict))
        response.setCookie(Cookie(name: WebCSRF.signInCookie, value: "", maxAge: 0, path: "/sign-in", httpOnly: true, sameSite: .strict))
        return response
    }

    func signOut(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let session = try await checkedForm(request, context).session
        try await sessions.delete(session)
        webAuthenticator.forget(session)
        var response = WebPages.redirect(to: "/sign-in?did=signed-out")
        response.setCookie(
            Cookie(name: WebSessionAuthenticator.cookieName, value: "", maxAge: 0, path: "/", secure: Self.isSecure(request), httpOnly: true, sameSite: .strict))
        return response
    }

    /// Served over TLS, directly or behind a proxy that says so: the cookie is then `Secure`.
    static func isSecure(_ request: Request) -> Bool {
        request.uri.scheme == .https || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    // MARK: Acting

    /// `GET /confirm`: what an action will do, and the form that does it.
    func confirmPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let principal = try context.require(.admin)
        let query = try WebPages.query(request)
        let action = query["action"] ?? ""
        let chrome = WebChrome(principal: principal, session: context.webSession, section: .media)
        switch action {
        case "cancel", "retry", "delete":
            guard let text = query["media"], let id = Int64(text), id > 0 else {
                throw APIError.badRequest("media must be a media id", field: "media")
            }
            let media = try await store.progress(of: id, tenant: principal.tenant)
            let name = "“\(WebPages.title(media.title, mediaID: id))” (media \(id))"
            let view: ConfirmView
            switch action {
            case "cancel":
                view = ConfirmView(
                    chrome: chrome, question: "Cancel \(name)?",
                    consequence: "Queued jobs stop at once and running ones at their next check. Chapters already transcribed keep their text; Retry resumes the rest.",
                    action: "/media/\(id)/cancel", button: "Cancel this media", danger: true, backLink: "/media/\(id)", fields: [])
            case "retry":
                view = ConfirmView(
                    chrome: chrome, question: "Retry \(name)?",
                    consequence: "What failed or was cancelled is queued again with a fresh budget of attempts; finished chapters are kept.",
                    action: "/media/\(id)/retry", button: "Retry this media", danger: false, backLink: "/media/\(id)", fields: [])
            default:
                view = ConfirmView(
                    chrome: chrome, question: "Delete \(name)?",
                    consequence: "Its transcript, chapters and jobs are removed for good, and an uploaded recording with them. This cannot be undone.",
                    action: "/media/\(id)/delete", button: "Delete for good", danger: true, backLink: "/media/\(id)", fields: [])
            }
            return try page("confirm", view)
        case "retry-failed", "cancel-retrying":
            guard let errorClass = query["class"], !errorClass.isEmpty, errorClass.count <= 100 else {
                throw APIError.badRequest("class must name a failure class from the overview", field: "class")
            }
            let retry = action == "retry-failed"
            let ids = retry
                ? try await store.failedMediaIDs(errorClass: errorClass, tenant: principal.tenant)
                : try await store.retryingMediaIDs(errorClass: errorClass, tenant: principal.tenant)
            let view = ConfirmView(
                chrome: chrome,
                question: retry
                    ? "Retry the \(ids.count) failed media of class \(errorClass)?"
                    : "Cancel the \(ids.count) media waiting to retry after \(errorClass)?",
                consequence: retry
                    ? "Each is queued again as Retry on its page would. Media that failed for another reason are left alone."
                    : "Each is cancelled as Cancel on its page would; Retry resumes it later.",
                action: retry ? "/failures/retry" : "/failures/cancel", button: retry ? "Retry \(ids.count) media" : "Cancel \(ids.count) media",
                danger: !retry, backLink: "/", fields: [.init(name: "class", value: errorClass)])
            return try page("confirm", view)
        default:
            throw APIError.badRequest("action must be cancel, retry, delete, retry-failed or cancel-retrying", field: "action")
        }
    }

    /// `POST /media/{id}/{cancel|retry|delete|focus}` from a page's form, and
    /// `POST /media/{id}/speaker-N` from the reader's rename form (a name, or none to take it away).
    func mediaAction(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let action = context.parameters.get("action") ?? ""
        if action.hasPrefix("speaker-") {
            return try await speakerAction(request, context, number: Int(action.dropFirst("speaker-".count)))
        }
        let (form, principal) = try await checkedForm(request, context, needs: .admin)
        let id = try RouteParameters.mediaID(context)
        switch action {
        case "cancel":
            try await store.requireMedia(id, tenant: principal.tenant)
            _ = try await store.cancel(mediaID: id, reason: "cancelled in the web view by key \(principal.prefix)")
            return WebPages.redirect(to: "/media/\(id)?did=cancelled")
        case "retry":
            try await store.requireMedia(id, tenant: principal.tenant)
            _ = try await store.retry(mediaID: id)
            return WebPages.redirect(to: "/media/\(id)?did=retried")
        case "delete":
            _ = try await media.deleteMedia(id, tenant: principal.tenant)
            context.logger.info("media deleted in the web view", metadata: ["media.id": "\(id)"])
            return WebPages.redirect(to: "/media?did=deleted")
        case "focus":
            guard let text = form["chapter"], let chapter = Int(text), chapter >= 1 else {
                throw APIError.badRequest("chapter must be a chapter number", field: "chapter")
            }
            try await store.requireMedia(id, tenant: principal.tenant)
            _ = try await store.focus(mediaID: id, chapter: chapter)
            return WebPages.redirect(to: "/media/\(id)?did=focused")
        default:
            throw APIError.notFound("there is no action \(action): a media can be cancelled, retried, deleted or focused")
        }
    }

    private func speakerAction(_ request: Request, _ context: APIRequestContext, number: Int?) async throws -> Response {
        let (form, principal) = try await checkedForm(request, context, needs: .submit)
        let id = try RouteParameters.mediaID(context)
        guard let number, number >= 1 else { throw APIError.notFound("there is no such speaker") }
        try await store.requireMedia(id, tenant: principal.tenant)
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty {
            try await store.unnameSpeaker(mediaID: id, number: number)
        } else {
            _ = try await store.renameSpeaker(mediaID: id, number: number, name: name)
        }
        context.logger.info("speaker named in the web view", metadata: ["media.id": "\(id)", "speaker": "\(number)"])
        let back = form["back"].flatMap { $0.hasPrefix("/media/\(id)/read") ? $0 : nil } ?? "/media/\(id)/read"
        return WebPages.redirect(to: back)
    }

    /// `POST /failures/{retry|cancel}`: every media of the tenant that the overview grouped under
    /// the class, each as its own page's button would.
    func failuresAction(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (form, principal) = try await checkedForm(request, context, needs: .admin)
        guard let errorClass = form["class"], !errorClass.isEmpty else {
            throw APIError.badRequest("class must name a failure class", field: "class")
        }
        switch context.parameters.get("action") {
        case "retry":
            let ids = try await store.failedMediaIDs(errorClass: errorClass, tenant: principal.tenant)
            for id in ids { _ = try await store.retry(mediaID: id) }
            context.logger.info("retried failed media in the web view", metadata: ["class": "\(errorClass)", "media": "\(ids.count)"])
            return WebPages.redirect(to: "/?did=bulk-retried")
        case "cancel":
            let ids = try await store.retryingMediaIDs(errorClass: errorClass, tenant: principal.tenant)
            for id in ids { _ = try await store.cancel(mediaID: id, reason: "cancelled in the web view by key \(principal.prefix)") }
            context.logger.info("cancelled retrying media in the web view", metadata: ["class": "\(errorClass)", "media": "\(ids.count)"])
            return WebPages.redirect(to: "/?did=bulk-cancelled")
        default:
            throw APIError.notFound("failures can be retried or cancelled")
        }
    }

    /// A form of a page of this session: its CSRF token must be the session's. With `needs`,
    /// the key's scope must allow it too (a read key sees, an admin key acts).
    private func checkedForm(
        _ request: Request, _ context: APIRequestContext, needs scope: APIScope = .read
    ) async throws -> (form: WebFields, principal: APIPrincipal) {
        let principal = try context.require(scope)
        guard let session = context.webSession else { throw APIError(.unauthorized, code: "signed_out", "sign in to the web view first") }
        let form = try await Self.form(request, context)
        guard WebCSRF.accepts(form[WebCSRF.fieldName], for: session) else {
            throw APIError(
                .forbidden, code: "csrf", "this form did not come from a page of your session",
                hint: "go back, reload the page and try again")
        }
        return (form, principal)
    }

    private func checkedForm(_ request: Request, _ context: APIRequestContext) async throws -> (form: WebFields, session: WebSessionToken) {
        let (form, _) = try await checkedForm(request, context, needs: .read)
        return (form, context.webSession!)
    }

    static func form(_ request: Request, _ context: APIRequestContext) async throws -> WebFields {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false else {
            throw APIError(.unsupportedMediaType, code: "not_a_form", "send the page's form (application/x-www-form-urlencoded)")
        }
        let body = try await request.body.collect(upTo: 64 << 10)
        return try WebFields(String(buffer: body), from: .form)
    }
}
