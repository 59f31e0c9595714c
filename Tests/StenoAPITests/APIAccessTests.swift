import Foundation
import StenoAPI
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Who may do what: keys, scopes, tenants and the request rate.
@Suite("steno-api: keys, scopes, tenants, rate")
struct APIAccessTests {
    @Test("without a key, with a malformed one or an unknown one, /v1 answers 401 with WWW-Authenticate and the error shape")
    func missingOrUnknownKeys() async throws {
        try await InProcessAPI.with { api in
            let none = try await api.request("GET", "/v1/media")
            #expect(none.status == 401)
            #expect(none.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            #expect(none.errorCode == "unauthorized")
            let foreign = try await api.request("GET", "/v1/media", key: "sk-not-a-steno-key")
            #expect(foreign.status == 401)
            #expect(!foreign.text.contains("sk-not-a-steno-key"))
            let unknown = try await api.request("GET", "/v1/media", key: APIKeyToken.generate().secret)
            #expect(unknown.status == 401)
            #expect(unknown.errorCode == "invalid_key")
            // Health, readiness, metrics and the contract need no key.
            for path in ["/healthz", "/readyz", "/metrics", "/openapi.yaml"] {
                #expect(try await api.request("GET", path).status == 200, "\(path)")
            }
        }
    }

    @Test("a revoked key stops working within the key cache's lifetime")
    func revokedKeyStops() async throws {
        let clock = ManualClock()
        try await InProcessAPI.with(clock: clock, configure: { $0.keyCacheLifetime = .milliseconds(200) }) { api in
            let key = try await api.key(.read)
            #expect(try await api.request("GET", "/v1/media", key: key).status == 200)
            let prefix = String(key.prefix(APIKeyToken.prefixLength))
            _ = try await KeyStore(client: api.owner).revoke(prefix)
            clock.advance(by: .milliseconds(199))
            #expect(try await api.request("GET", "/v1/media", key: key).status == 200, "the cached key still holds")
            clock.advance(by: .milliseconds(2))
            let after = try await api.request("GET", "/v1/media", key: key)
            #expect(after.status == 401)
        }
    }

    @Test("a read key cannot submit or act; a submit key cannot act; an admin key can")
    func scopes() async throws {
        try await InProcessAPI.with { api in
            let read = try await api.key(.read)
            let submit = try await api.key(.submit)
            let admin = try await api.key(.admin)
            let book = FixtureBook.file("clip-2s.flac").path
            let refused = try await api.request("POST", "/v1/media", key: read, body: .form([], files: [("file", book)]))
            #expect(refused.status == 403)
            #expect(refused.errorCode == "insufficient_scope")
            #expect(api.uploadedFiles.isEmpty, "a refused upload left a file")
            let created = try await api.request("POST", "/v1/media", key: submit, body: .form([], files: [("file", book)]))
            #expect(created.status == 202)
            let location = try #require(created.headers["location"])
            #expect(try await api.request("POST", location + "/cancel", key: submit).status == 403)
            #expect(try await api.request("GET", "/v1/workers", key: submit).status == 403)
            #expect(try await api.request("GET", location, key: read).status == 200)
            let cancelled = try await api.request("POST", location + "/cancel", key: admin)
            #expect(cancelled.status == 200)
            #expect(try await api.request("GET", "/v1/report", key: admin).status == 200)
            #expect(try await api.request("GET", "/v1/workers", key: admin).status == 200)
        }
    }

    @Test("another tenant's media is not there: 404 on every route, absent from lists and events")
    func tenantsAreApart() async throws {
        try await RunningAPI.with { api in
            let acme = try await api.key(.admin, tenant: "acme")
            let globex = try await api.key(.admin, tenant: "globex")
            let created = try await HTTP.request(
                "POST", api.url("/v1/media"), key: acme, body: .form([("title", "Acme secret")], files: [("file", FixtureBook.file("clip-2s.flac").path)]))
            #expect(created.status == 202)
            let location = try #require(created.headers["location"])
            let mediaID = try #require(Int64(location.split(separator: "/").last!))
            for (method, path) in [
                ("GET", location), ("GET", location + "/transcript"), ("POST", location + "/cancel"), ("POST", location + "/retry"),
                ("POST", location + "/focus?chapter=1"), ("DELETE", location),
            ] {
                let answer = try await HTTP.request(method, api.url(path), key: globex)
                #expect(answer.status == 404, "\(method) \(path) answered \(answer.status) to another tenant")
                #expect(!answer.text.contains("Acme secret"))
            }
            let list = try await HTTP.request("GET", api.url("/v1/media"), key: globex)
            #expect((list.json["media"] as? [Any])?.isEmpty == true)
            // The stream never ends: curl reads what ten seconds bring (the answer's head comes
            // at once, even on a loaded machine) and the check is that none of it is Acme's.
            let events = try await HTTP.request("GET", api.url("/v1/events?media=\(mediaID)"), key: globex, maxSeconds: 10)
            #expect(!events.text.contains("Acme secret"))
            #expect(!events.text.contains("\"media_id\":\(mediaID)"))
            // And it is still there for its own tenant: nothing above changed it.
            let own = try await HTTP.request("GET", api.url(location), key: acme)
            #expect(own.status == 200)
            #expect((own.json["media"] as? [String: Any])?["state"] as? String == "queued")
        }
    }

    @Test("a key over its rate gets 429 with Retry-After, and other keys are not held back")
    func rateLimit() async throws {
        // The clock stands still: the bucket refills only when the test moves it.
        let clock = ManualClock()
        try await InProcessAPI.with(clock: clock, configure: { $0.rate = RequestRate(requestsPerSecond: 0.05, burst: 3) }) { api in
            let busy = try await api.key(.read)
            let quiet = try await api.key(.read)
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await api.request("GET", "/v1/media", key: busy).status) }
            #expect(statuses == [200, 200, 200, 429])
            let refused = try await api.request("GET", "/v1/media", key: busy)
            #expect(refused.status == 429)
            #expect(refused.errorCode == "rate_limited")
            // One request at 0.05 a second: the next token is 20 s away.
            #expect(refused.headers["retry-after"] == "20")
            #expect(try await api.request("GET", "/v1/media", key: quiet).status == 200)
            clock.advance(by: .seconds(20))
            #expect(try await api.request("GET", "/v1/media", key: busy).status == 200, "a token refilled after 20 s")
        }
    }

    @Test("the server works when it logs in as a member of steno_api, which cannot make or change keys")
    func leastPrivilegeRole() async throws {
        try await TestDatabase.with { database in
            try await RunningAPI.with(database: database, login: "steno_api") { api in
                let admin = try await api.key(.admin)
                let created = try await HTTP.request("POST", api.url("/v1/media"), key: admin, body: .form([], files: [("file", FixtureBook.file("clip-2s.flac").path)]))
                #expect(created.status == 202)
                let location = try #require(created.headers["location"])
                #expect(try await HTTP.request("GET", api.url("/v1/media?state=queued"), key: admin).status == 200)
                #expect(try await HTTP.request("POST", api.url(location + "/cancel"), key: admin).status == 200)
                #expect(try await HTTP.request("POST", api.url(location + "/retry"), key: admin).status == 200)
                #expect(try await HTTP.request("GET", api.url("/v1/report"), key: admin).status == 200)
                #expect(try await HTTP.request("DELETE", api.url(location), key: admin).status == 200)
                #expect(api.uploadedFiles.isEmpty, "deleting the media left its upload")

                let connection = try await PostgresConnection.connect(configuration: api.database.configuration)
                defer { Task { await connection.close() } }
                for statement in [
                    "INSERT INTO api_keys (prefix, token_hash, scope, tenant) VALUES ('stk_x', decode(repeat('00', 32), 'hex'), 'admin', 'acme')",
                    "UPDATE api_keys SET scope = 'admin', tenant = 'other', revoked_at = NULL",
                    "DELETE FROM api_keys",
                    "DELETE FROM workers",
                    "UPDATE workers SET state = 'stopped'",
                ] {
                    await #expect(throws: PostgresError.self, "steno_api could run: \(statement)") {
                        _ = try await connection.query(statement, [])
                    }
                }
            }
        }
    }
}
