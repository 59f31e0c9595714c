import StenoCore
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// One second of generated audio sent to a backend, as `steno backend check` does.
@Suite struct BackendCheckTests {
    @Test func reportsSuccessWithLatency() async throws {
        let server = try FaultServer(replies: [], then: .json(200, #"{"text":"","segments":[]}"#, delay: .milliseconds(50)))
        // The latency is measured on the client's clock: the real one here, so that there is one.
        let report = await BackendCheck.run(TestBackend.client(clock: .continuous, TestBackend.configuration(url: server.baseURL)))
        #expect(report.succeeded)
        #expect(report.latency > .zero)
        #expect(report.text == "")
        let file = try #require(server.requests.first?.parts.first { $0.name == "file" })
        #expect(file.fileName == "audio.wav")
        #expect(file.body == BackendCheck.probeAudio)
    }

    @Test func reportsTheFailureClassAndTheBackendsMessage() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(404, message: "The model `whisper-9` does not exist", type: "invalid_request_error", code: "model_not_found"))
        let report = await BackendCheck.run(TestBackend.client(TestBackend.configuration(url: server.baseURL)))
        #expect(!report.succeeded)
        #expect(report.failure?.failureClass == .permanent)
        #expect(report.failure?.backendMessage == "The model `whisper-9` does not exist")
    }

    @Test("reports the response format that worked: json after the backend refused verbose_json")
    func reportsTheLearnedFormat() async throws {
        let refusal = FaultServer.Reply.openAIError(
            400, message: "response_format 'verbose_json' is not compatible with model 'gpt-x'.", type: "invalid_request_error",
            code: "unsupported_value")
        let server = try FaultServer(replies: [refusal], then: .json(200, #"{"text":""}"#))
        let report = await BackendCheck.run(TestBackend.client(TestBackend.configuration(url: server.baseURL)))
        #expect(report.succeeded)
        #expect(report.responseFormat == "json")
        let plain = try FaultServer(replies: [], then: .json(200, #"{"text":"","segments":[]}"#))
        #expect(await BackendCheck.run(TestBackend.client(TestBackend.configuration(url: plain.baseURL))).responseFormat == "verbose_json")
    }
}
