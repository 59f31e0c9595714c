import Foundation
import StenoAPI
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// `GET /v1/events`: Server-Sent Events fed by one listening session per server.
@Suite("steno-api: events")
struct APIEventsTests {
    /// A curl following the stream into a file, for as long as the test needs it.
    final class EventClient: Sendable {
        let process: BackgroundProcess
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-sse-\(UUID().uuidString).txt").path

        init(url: String, key: String) throws {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            process = try BackgroundProcess(
                "/usr/bin/curl", ["-sS", "-N", "--max-time", "120", "-H", "Authorization: Bearer \(key)", "-o", path, url],
                environment: ProcessInfo.processInfo.environment)
        }

        var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

        /// Whether `needle` arrives; the limit bounds a hang, it times nothing.
        func waitFor(_ needle: String, timeout: Duration = .seconds(60)) async throws -> Bool {
            try await poll(until: { text.contains(needle) }, within: timeout, "\(needle) from the event stream")
            return text.contains(needle)
        }

        deinit {
            process.signal(SIGKILL)
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    @Test("a change of a followed media arrives as a progress event with its new state")
    func progressArrives() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.admin)
            let created = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .form([], files: [("file", FixtureBook.file("clip-2s.flac").path)]))
            let location = try #require(created.headers["location"])
            let id = try #require(location.split(separator: "/").last.map(String.init))
            let client = try EventClient(url: api.url("/v1/events?media=\(id)"), key: key)
            // The current state first.
            #expect(try await client.waitFor(#""state":"queued""#))
            // The hub reads nothing on a timer: a change reaches a client only through the
            // database's notice, so its arriving at all is the notice path working.
            #expect(try await HTTP.request("POST", api.url(location + "/cancel"), key: key).status == 200)
            #expect(try await client.waitFor(#""state":"cancelled""#), "\(client.text)")
            #expect(client.text.contains("event: progress"))
        }
    }

    @Test("fifty clients share one listening session, and each hears the change")
    func oneSessionForManyClients() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.admin)
            let clients = try (0..<50).map { _ in try EventClient(url: api.url("/v1/events"), key: key) }
            // Each has connected once the server counts it.
            try await poll(until: { api.server.eventClients == 50 }, "50 event clients connected")
            #expect(api.server.eventClients == 50)
            let created = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .form([("title", "Broadcast")], files: [("file", FixtureBook.file("clip-2s.flac").path)]))
            #expect(created.status == 202)
            for client in clients {
                #expect(try await client.waitFor("Broadcast"), "a client did not hear the new media")
            }
            let listening = try await api.client.query(
                """
                SELECT count(*) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND application_name = 'steno-tests'
                """
            ).single().decode("n", as: Int.self)
            #expect(listening == 1)
        }
    }
}
