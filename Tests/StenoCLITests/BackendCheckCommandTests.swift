import Foundation
import StenoTestSupport
import StenoTranscription
import Testing
@testable import StenoCLI
import ArgumentParser

/// `steno backend check` against real local servers.
@Suite struct BackendCheckCommandTests {
    static let key = TestSecret.make("sk-cli-check")

    @Test func checksPrimaryAndFallbackAndPrintsJSON() async throws {
        let primary = try FaultServer(replies: [])
        let fallback = try FaultServer(replies: [], then: .echo(status: 401) { request in
            ([], #"{"error":{"message":"Incorrect API key provided: \#(request.header("Authorization") ?? "")","type":"invalid_request_error","code":"invalid_api_key"}}"#)
        })
        let (output, exitCode) = await Steno.Backend.Check.check(environment: [
            "STENO_BACKEND_URL": primary.baseURL, "STENO_API_KEY": Self.key,
            "STENO_FALLBACK_BACKEND_URL": fallback.baseURL, "STENO_FALLBACK_API_KEY": Self.key,
        ], json: true)
        #expect(exitCode.rawValue == 1)
        // The probe, then the same probe to the translations endpoint; a backend that failed
        // the first is not asked the second.
        #expect(primary.requests.map(\.head.path) == ["/v1/audio/transcriptions", "/v1/audio/translations"])
        #expect(fallback.requestCount == 1)
        #expect(!output.contains(Self.key))
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(entries[0]["backend"] as? String == "primary")
        #expect(entries[0]["ok"] as? Bool == true)
        #expect(entries[0]["text"] as? String == "Hello from the fault server.")
        #expect(entries[0]["latency_ms"] is Int)
        #expect(entries[0]["translations_ok"] as? Bool == true)
        #expect(entries[1]["translations_ok"] == nil)
        #expect(entries[1]["backend"] as? String == "fallback")
        #expect(entries[1]["ok"] as? Bool == false)
        #expect(entries[1]["failure_class"] as? String == "configuration")
        #expect(entries[1]["http_status"] as? Int == 401)
        #expect((entries[1]["backend_message"] as? String)?.hasPrefix("Incorrect API key provided: Bearer [redacted]") == true)
    }

    @Test func textOutputNamesTheClassAndSucceedsWhenAllAnswer() async throws {
        let server = try FaultServer(replies: [.openAIError(503, message: "overloaded", type: "server_error")])
        let (failed, failedCode) = await Steno.Backend.Check.check(environment: ["STENO_BACKEND_URL": server.baseURL], json: false)
        #expect(failedCode.rawValue == 1)
        #expect(failed.contains("primary: \(server.baseURL)/v1/audio/transcriptions model whisper-1: FAILED (transient, HTTP 503)"))
        #expect(failed.contains("backend said: overloaded"))
        #expect(server.requestCount == 1)

        let (succeeded, succeededCode) = await Steno.Backend.Check.check(environment: ["STENO_BACKEND_URL": server.baseURL], json: false)
        #expect(succeededCode == .success)
        #expect(succeeded.contains("primary: \(server.baseURL)/v1/audio/transcriptions model whisper-1: ok in "))
    }

    @Test("a backend without /v1/audio/translations is reported as such, and the check still passes: it transcribes")
    func backendWithoutTranslations() async throws {
        let server = try FaultServer { _, head in
            head.path.hasSuffix("/translations")
                ? .openAIError(404, message: "Not Found", type: "invalid_request_error") : .json(200, FaultServer.minimalTranscription)
        }
        let (output, exitCode) = await Steno.Backend.Check.check(environment: ["STENO_BACKEND_URL": server.baseURL], json: false)
        #expect(exitCode == .success)
        #expect(output.contains("translations: not available (HTTP 404)"), "\(output)")
        #expect(output.contains("media enqueued with --translate would fail"))
        let plain = try FaultServer(replies: [])
        var configuration = try #require(try TranscriptionBackendConfiguration.fromEnvironment(["STENO_BACKEND_URL": plain.baseURL, "STENO_BACKEND_PATH": "/inference"]))
        configuration.retry.maximumRetries = 0
        let report = await BackendCheck.run(TranscriptionClient(configuration: configuration))
        #expect(report.succeeded && report.translation?.available == false && report.translation?.url == nil)
        #expect(plain.requestCount == 1, "no translations endpoint beside /inference: nothing is sent")
    }

    @Test func missingConfigurationExitsWithTwo() async {
        let (output, exitCode) = await Steno.Backend.Check.check(environment: [:], json: false)
        #expect(exitCode.rawValue == 2)
        #expect(output.contains("STENO_BACKEND_URL"))
    }

    @Test func commandIsRegistered() throws {
        let command = try Steno.parseAsRoot(["backend", "check", "--json", "--backend-url", "http://127.0.0.1:9"])
        #expect(command is Steno.Backend.Check)
    }
}
