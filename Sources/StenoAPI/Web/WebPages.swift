import Foundation
import HTTPTypes
import Hummingbird
import StenoCore
import StenoInfrastructure

/// Answers the web view's handlers share: pages, redirects, and the bits of text pages show.
enum WebPages {
    /// Every page is HTML that names only Steno's own assets; the policy says so to the browser
    /// too, so that text from a transcript could not load or run anything even if it slipped
    /// past the escaping.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
        .cacheControl: "no-store",
    ]

    static func html(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = securityHeaders
        fields[.contentType] = "text/html; charset=utf-8"
        for field in headers { fields[field.name] = field.value }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// 303 See Other: after a form, the browser GETs the page it is sent to.
    static func redirect(to location: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.location] = location
        fields[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: fields)
    }

    /// A path and query taken from a form or a query parameter, kept only when it stays on this
    /// site: `/media/3`, never `//evil.example` or `https://...`.
    static func localPath(_ text: String?) -> String? {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\\" })
        else { return nil }
        return text
    }

    static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// A query string's value: `&`, `=`, `+`, `#` and spaces escaped.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func seconds(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    static func minutes(_ seconds: Double) -> String {
        seconds >= 600 ? String(format: "%.0f min", seconds / 60) : String(format: "%.1f min", seconds / 60)
    }

    static func date(_ date: Date?) -> String {
        HumanFormat.timestamp(date)
    }

    /// The store's hints name CLI commands; on a page, the same thing is a page or a button.
    static func hint(_ hint: String) -> String {
        hint.replacing(/`steno status (\d+)`/) { "its page, /media/\($0.1)," }
            .replacing(/`steno retry (\d+)`/) { "Retry on /media/\($0.1)" }
            .replacing(/`steno wait (\d+)`/) { "its page, /media/\($0.1), which follows it live," }
            .replacing("`steno list`", with: "the Media page")
            .replacing("`steno retry`", with: "Retry")
    }

    static func title(_ title: String?, mediaID: Int64) -> String {
        guard let title, !title.trimmingCharacters(in: .whitespaces).isEmpty else { return "Media \(mediaID)" }
        return title
    }
}

extension WebPages {
    /// A page's query string as a browser's form sends it: `+` is a space (Hummingbird's
    /// `queryParameters` keeps it as a plus, which would search for "harbor+boats").
    static func query(_ request: Request) throws -> WebFields {
        try WebFields(request.uri.query ?? "", from: .query)
    }
}
