import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Testing

@testable import StenoTranscription

/// The webhook's HTTP client: the worker's curl engine, not a second HTTP stack.
@Suite struct JSONPosterTests {
    @Test("posts the bytes as they are, as JSON, and reports the status whatever it is")
    func postsJSON() async throws {
        let server = try FaultServer(replies: [.json(503, "{}")], then: .json(204, ""))
        defer { server.stop() }
        let body = Array(#"{"media_id":7,"note":"caf\u00e9 \u0000"}"#.utf8) + [0]
        #expect(await JSONPoster().post(body, to: server.baseURL + "/hook?token=t0k") == .answered(status: 503))
        #expect(await JSONPoster().post([], to: server.baseURL + "/hook") == .answered(status: 204))
        let first = try #require(server.requests.first)
        #expect(first.head.method == "POST" && first.head.path == "/hook?token=t0k")
        #expect(first.header("Content-Type") == "application/json")
        #expect(first.body == body, "the body arrives byte for byte, its NUL included")
        #expect(server.requests.last?.body == [])
    }

    @Test("a server that is not there, or a URL that is not http(s), fails with a reason and no URL")
    func failures() async throws {
        let refused = await JSONPoster(timeout: .seconds(5)).post([1], to: "http://127.0.0.1:9/hook?token=secret-t0k")
        guard case .failed(let reason) = refused else {
            Issue.record("expected a failure, got \(refused)")
            return
        }
        #expect(!reason.contains("secret-t0k"))
        #expect(await JSONPoster().post([1], to: "file:///etc/passwd") == .failed(reason: "the URL is not http(s)"))
    }

    @Test("with a connection guard, a post to a loopback address is refused before it connects; an allowed host is reached")
    func guardedPost() async throws {
        let server = try FaultServer(replies: [], then: .json(204, ""))
        defer { server.stop() }
        let refused = await JSONPoster().post([1], to: server.baseURL + "/hook", connectionGuard: ConnectionGuard(policy: OutboundURLPolicy()))
        guard case .failed(let reason) = refused else {
            Issue.record("expected a refusal, got \(refused)")
            return
        }
        #expect(reason.contains("loopback"), "\(reason)")
        #expect(server.requests.isEmpty, "the guarded post reached the server")
        let allowed = await JSONPoster().post([1], to: server.baseURL + "/hook", connectionGuard: ConnectionGuard(policy: OutboundURLPolicy(allowedHosts: ["127.0.0.1"])))
        #expect(allowed == .answered(status: 204))
        #expect(server.requests.count == 1)
    }

    @Test("a server that never answers is given up on at the time limit")
    func timeout() async throws {
        let server = try FaultServer(replies: [.hang])
        defer { server.stop() }
        // The server never answers: only the poster's own limit can end this call.
        let outcome = await JSONPoster(timeout: .seconds(1)).post([1], to: server.baseURL + "/hook")
        guard case .failed = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
    }
}
