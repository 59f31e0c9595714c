import Foundation
import StenoAPI
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// The web view over real HTTP, as a browser speaks it: cookies, forms, redirects and ranges.
/// (Tests/web/browser_test.py drives the same pages in Chromium.)
@Suite("steno-api: the web view")
struct WebViewTests {
    /// A browser's state: a cookie jar of its own.
    struct Browser {
        let api: RunningAPI
        let jar = FileManager.default.temporaryDirectory.appendingPathComponent("steno-jar-\(UUID().uuidString)").path

        func get(_ path: String, headers: [String: String] = [:]) async throws -> HTTPAnswer {
            try await HTTP.request("GET", api.url(path), headers: ["Accept": "text/html"].merging(headers) { $1 }, cookieJar: jar)
        }

        func post(_ path: String, _ fields: [(String, String)], headers: [String: String] = [:]) async throws -> HTTPAnswer {
            try await HTTP.request("POST", api.url(path), headers: ["Accept": "text/html"].merging(headers) { $1 }, body: .urlencoded(fields), cookieJar: jar)
        }

        /// Signs in through the form, as a person would.
        @discardableResult
        func signIn(_ key: String, headers: [String: String] = [:]) async throws -> HTTPAnswer {
            let form = try await get("/sign-in")
            return try await post("/sign-in", [("key", key), ("csrf", try Self.hidden("csrf", in: form.text)), ("next", "/")], headers: headers)
        }

        /// The CSRF token the page's forms carry.
        func token(on path: String = "/") async throws -> String {
            try Self.hidden("csrf", in: try await get(path).text)
        }

        static func hidden(_ name: String, in html: String) throws -> String {
            let match = try #require(html.firstMatch(of: try Regex("name=\"\(name)\" value=\"([^\"]*)\"")), "no hidden \(name) field")
            return String(try #require(match.output[1].substring))
        }
    }

    private func upload(_ api: RunningAPI, key: String, title: String = "The Keeper") async throws -> Int {
        let answer = try await HTTP.request(
            "POST", api.url("/v1/media"), key: key, body: .form([("title", title)], files: [("file", FixtureBook.file("book.m4b").path)]))
        #expect(answer.status == 202)
        return try #require((answer.json["media"] as? [String: Any])?["media_id"] as? Int)
    }

    @Test("signed out, a page sends the browser to sign in and a script's fetch is told 401")
    func signedOut() async throws {
        try await RunningAPI.with { api in
            let browser = Browser(api: api)
            let page = try await browser.get("/media/7?x=1")
            #expect(page.status == 303)
            #expect(page.headers["location"] == "/sign-in?next=/media/7%3Fx%3D1")
            let events = try await HTTP.request("GET", api.url("/events"))
            #expect(events.status == 401)
            #expect(try await browser.get("/sign-in").status == 200)
            #expect(try await browser.get("/static/steno.css").status == 200)
        }
    }

    @Test("signing in makes an HttpOnly, SameSite=Strict session cookie, Secure behind TLS; a wrong key or token makes none")
    func signingIn() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.read)
            let browser = Browser(api: api)
            let form = try await browser.get("/sign-in")
            #expect(form.setCookie("steno_signin")?.contains("HttpOnly") == true)
            let signedIn = try await browser.signIn(key)
            #expect(signedIn.status == 303 && signedIn.headers["location"] == "/")
            let cookie = try #require(signedIn.setCookie("steno_session"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/") && !cookie.contains("Secure"))
            #expect(!cookie.contains(key), "the key itself went to the browser")
            #expect(try await browser.get("/").status == 200)

            let tls = try await Browser(api: api).signIn(key, headers: ["X-Forwarded-Proto": "https"])
            #expect(tls.setCookie("steno_session")?.contains("Secure") == true)

            let wrong = try await Browser(api: api).signIn(APIKeyToken.generate().secret)
            #expect(wrong.status == 401 && wrong.setCookie("steno_session") == nil)
            #expect(wrong.text.contains("unknown or revoked"))
            let notAKey = try await Browser(api: api).signIn("sk-live-123")
            #expect(notAKey.status == 401 && notAKey.text.contains("starts with stk_"))
            #expect(!notAKey.text.contains("sk-live-123"), "the page echoed what was pasted")

            // A form without the sign-in token (from another site) makes no session.
            let forged = try await Browser(api: api).post("/sign-in", [("key", key), ("csrf", "forged")])
            #expect(forged.status == 403 && forged.setCookie("steno_session") == nil)
        }
    }

    @Test("revoking the key or signing out ends the session")
    func sessionsEnd() async throws {
        try await RunningAPI.with(configure: { $0.keyCacheLifetime = .zero }) { api in
            let key = try await api.key(.read)
            let browser = Browser(api: api)
            try await browser.signIn(key)
            #expect(try await browser.get("/").status == 200)
            _ = try await KeyStore(client: api.client).revoke(String(key.prefix(APIKeyToken.prefixLength)))
            #expect(try await browser.get("/").status == 303)

            let second = Browser(api: api)
            try await second.signIn(try await api.key(.read))
            let token = try await second.token()
            #expect(try await second.post("/sign-out", [("csrf", token)]).status == 303)
            #expect(try await second.get("/").status == 303)
        }
    }

    @Test("a form needs the session's token and an admin key; an admin's form acts")
    func actions() async throws {
        try await RunningAPI.with { api in
            let admin = try await api.key(.admin)
            let id = try await upload(api, key: admin)
            let reader = Browser(api: api)
            try await reader.signIn(try await api.key(.read))
            let readerPage = try await reader.get("/media/\(id)")
            #expect(readerPage.status == 200 && !readerPage.text.contains("cancel-link") && !readerPage.text.contains("delete-link"))
            let readerToken = try await reader.token(on: "/media/\(id)")
            let refused = try await reader.post("/media/\(id)/cancel", [("csrf", readerToken)])
            #expect(refused.status == 403 && refused.text.contains("admin"))
            #expect(try await reader.get("/confirm?action=delete&media=\(id)").status == 403)

            let browser = Browser(api: api)
            try await browser.signIn(admin)
            let page = try await browser.get("/media/\(id)")
            #expect(page.text.contains("cancel-link") || page.text.contains("retry-link"))
            let forged = try await browser.post("/media/\(id)/cancel", [("csrf", readerToken)])
            #expect(forged.status == 403 && forged.text.contains("did not come from a page of your session"))
            #expect(try await browser.post("/media/\(id)/cancel", [("reason", "no token")]).status == 403)
            let confirm = try await browser.get("/confirm?action=cancel&media=\(id)")
            #expect(confirm.status == 200 && confirm.text.contains("action=\"/media/\(id)/cancel\""))
            let cancelled = try await browser.post("/media/\(id)/cancel", [("csrf", try await browser.token(on: "/media/\(id)"))])
            #expect(cancelled.status == 303 && cancelled.headers["location"] == "/media/\(id)?did=cancelled")
            let state: String = try await api.client.query("SELECT state FROM media WHERE id = \(Int64(id))").single().decode("state")
            #expect(state == "cancelled")
            let deleted = try await browser.post("/media/\(id)/delete", [("csrf", try await browser.token())])
            #expect(deleted.status == 303)
            #expect(try await api.client.query("SELECT id FROM media WHERE id = \(Int64(id))").isEmpty)
            #expect(api.uploadedFiles.isEmpty, "the uploaded recording was kept")
        }
    }

    @Test("another tenant's media is not there on any page")
    func tenants() async throws {
        try await RunningAPI.with { api in
            let theirs = try await upload(api, key: try await api.key(.admin, tenant: "globex"), title: "Their Lighthouse")
            let browser = Browser(api: api)
            try await browser.signIn(try await api.key(.admin, tenant: "acme"))
            for path in ["/media/\(theirs)", "/media/\(theirs)/read", "/media/\(theirs)/audio", "/media/\(theirs)/download?format=txt",
                         "/confirm?action=delete&media=\(theirs)"] {
                #expect(try await browser.get(path).status == 404, "\(path)")
            }
            let token = try await browser.token()
            #expect(try await browser.post("/media/\(theirs)/delete", [("csrf", token)]).status == 404)
            #expect(!(try await browser.get("/media").text.contains("Their Lighthouse")))
        }
    }

    @Test("the recording is served in ranges, with the page's security headers on every page")
    func audioAndHeaders() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.admin)
            let id = try await upload(api, key: key)
            let size = Int64(try #require(try FileManager.default.attributesOfItem(atPath: FixtureBook.file("book.m4b").path)[.size] as? Int))
            let browser = Browser(api: api)
            try await browser.signIn(key)
            let part = try await browser.get("/media/\(id)/audio", headers: ["Range": "bytes=100-1123"])
            #expect(part.status == 206 && part.body.count == 1024)
            #expect(part.headers["content-range"] == "bytes 100-1123/\(size)" && part.headers["content-type"] == "audio/mp4")
            let expected = try #require(FileManager.default.contents(atPath: FixtureBook.file("book.m4b").path))
            #expect(part.body == expected.subdata(in: 100..<1124))
            let whole = try await browser.get("/media/\(id)/audio")
            #expect(whole.status == 200 && whole.headers["accept-ranges"] == "bytes" && Int64(whole.body.count) == size)
            let past = try await browser.get("/media/\(id)/audio", headers: ["Range": "bytes=\(size)-"])
            #expect(past.status == 416 && past.headers["content-range"] == "bytes */\(size)")

            for path in ["/", "/media", "/media/\(id)", "/search?q=keeper", "/sign-in"] {
                let page = try await browser.get(path)
                #expect(page.status == 200, "\(path)")
                #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true, "\(path)")
                #expect(page.headers["x-content-type-options"] == "nosniff", "\(path)")
            }
            let css = try await browser.get("/static/steno.css")
            let etag = try #require(css.headers["etag"])
            #expect(try await browser.get("/static/steno.css", headers: ["If-None-Match": etag]).status == 304)
            #expect(try await browser.get("/static/../Package.swift").status == 404)
        }
    }

    @Test("a search word with a plus or an escape is read as a browser's form sent it, and text is escaped")
    func searchForm() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.read)
            try await api.client.query("INSERT INTO media (source, title, tenant) VALUES ('/x.mp3', '<script>alert(1)</script>', 'acme')")
            let browser = Browser(api: api)
            try await browser.signIn(key)
            let page = try await browser.get("/search?q=the+harbor+%3Cb%3E")
            #expect(page.status == 200)
            #expect(page.text.contains("value=\"the harbor &lt;b&gt;\""))
            let list = try await browser.get("/media")
            #expect(list.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !list.text.contains("<script>alert"))
        }
    }
}
