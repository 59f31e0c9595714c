import Foundation
import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// Every outcome against a real misbehaving server: its class, the requests made, the waits
/// between them (on a clock that moves itself, so no test waits out a backoff).
@Suite struct FailureClassificationTests {
    /// Checks a transient failure retried `retries` times, waiting the configured backoff between requests.
    private func expectRetriedTransient(
        _ result: Result<TranscriptionResult, TranscriptionError>, clock: ManualClock, server: FaultServer?, retries: Int = 3,
        code: TranscriptionError.Code, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let error = result.failure
        #expect(error?.failureClass == .transient, sourceLocation: sourceLocation)
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.requests == retries + 1, sourceLocation: sourceLocation)
        if let server {
            // A client that timed out may leave before the server has read its request, which
            // the server then reads on its own time.
            try await poll(until: { server.requestCount >= retries + 1 }, "the server reading every request", sourceLocation: sourceLocation)
            #expect(server.requestCount == retries + 1, sourceLocation: sourceLocation)
        }
        TestBackend.expectBackoffWaits(clock.sleeps, retries: retries, sourceLocation: sourceLocation)
    }

    @Test(arguments: [408, 409, 500, 502, 503, 504])
    func serverSideStatusesAreTransientAndRetried(status: Int) async throws {
        let server = try FaultServer(replies: [], then: .openAIError(status, message: "The server had an error", type: "server_error"))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, code: .httpStatus)
        #expect(result.failure?.status == status)
        #expect(result.failure?.backendMessage == "The server had an error")
    }

    @Test func rateLimitIsTransientAndRetried() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(
            429, message: "Rate limit reached for whisper-1 in organization org-x on requests per min (RPM): Limit 50",
            type: "requests", code: "rate_limit_exceeded"))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, code: .httpStatus)
        #expect(result.failure?.backendCode == "rate_limit_exceeded")
    }

    @Test func transientFailureThenSuccessReturnsTheTranscription() async throws {
        let server = try FaultServer(replies: [.openAIError(503, message: "overloaded", type: "server_error"), .reset])
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = try await client.transcribe(TestBackend.chunk)
        #expect(result.requests == 3)
        #expect(server.requestCount == 3)
        #expect(result.transcription.text == "Hello from the fault server.")
        #expect(result.transcription.segments == [TranscriptionSegment(start: 0, end: 0.25, text: "Hello from the fault server.")])
    }

    @Test(arguments: [400, 404, 415, 422])
    func requestErrorsArePermanentWithTheBackendsMessage(status: Int) async throws {
        let message = "Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']"
        let server = try FaultServer(replies: [], then: .openAIError(status, message: message, type: "invalid_request_error"))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .permanent)
        #expect(error.status == status)
        #expect(error.backendMessage == message)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        #expect(clock.sleeps.isEmpty, "answered without a wait")
    }

    @Test func fastAPIValidationDetailIsTheMessage() async throws {
        let server = try FaultServer(replies: [], then: .json(422, #"{"detail":[{"loc":["body","file"],"msg":"Field required","type":"missing"}]}"#))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let error = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }.failure
        #expect(error?.failureClass == .permanent)
        #expect(error?.backendMessage == "file: Field required", "the message names the field FastAPI found missing")
    }

    @Test func whisperCppErrorStringIsTheMessage() async throws {
        let server = try FaultServer(replies: [], then: .json(400, #"{"error":"failed to read audio data"}"#))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let error = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }.failure
        #expect(error?.failureClass == .permanent)
        #expect(error?.backendMessage == "failed to read audio data")
    }

    @Test func payloadTooLargeAsksForASplit() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(
            413, message: "Maximum content size limit (26214400) exceeded (26345678 bytes read)", type: "server_error"))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .tooLarge)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        #expect(error.backendMessage?.contains("26214400") == true)
        #expect(clock.sleeps.isEmpty, "answered without a wait")
    }

    @Test(arguments: [
        (401, "invalid_request_error", "invalid_api_key"),
        (403, "invalid_request_error", "unsupported_country_region_territory"),
        (429, "insufficient_quota", "insufficient_quota"),
    ])
    func credentialsAndQuotaAreConfiguration(status: Int, type: String, code: String) async throws {
        let server = try FaultServer(replies: [], then: .openAIError(status, message: "You cannot do this.", type: type, code: code))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .configuration)
        #expect(error.status == status)
        #expect(error.backendCode == code)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        #expect(clock.sleeps.isEmpty, "answered without a wait")
    }

    @Test func redirectIsConfiguration() async throws {
        let server = try FaultServer(replies: [], then: .json(301, "", headers: [("Location", "https://api.example.net/v1/audio/transcriptions")]))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let error = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }.failure
        #expect(error?.failureClass == .configuration)
        #expect(error?.code == .redirected)
        #expect(server.requestCount == 1)
    }

    // MARK: Transport

    @Test func connectionRefusedIsTransient() async throws {
        let port = try FaultServer.closedPort()
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: "http://127.0.0.1:\(port)"))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: nil, code: .connectionFailed)
    }

    @Test func unresolvableHostIsTransient() async throws {
        // RFC 6761: names under .invalid never resolve.
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: "http://steno-backend.invalid", retries: 1))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .transient)
        #expect(result.failure?.code == .connectionFailed)
        #expect(result.failure?.requests == 2)
    }

    @Test func tlsHandshakeFailureIsTransient() async throws {
        let server = try FaultServer(replies: [])
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: "https://127.0.0.1:\(server.port)"))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, code: .connectionFailed)
        #expect(result.failure?.message.contains("TLS") == true)
    }

    @Test func connectionResetIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .reset)
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, code: .transferFailed)
    }

    @Test func garbageReplyIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .garbage)
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, code: .transferFailed)
    }

    @Test func truncatedBodyIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .truncated(status: 200, body: Array(#"{"text":"Hello, wor"#.utf8), declaredLength: 400))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, code: .transferFailed)
    }

    @Test func malformed2xxBodyIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .respond(
            status: 200, headers: [("Content-Type", "text/html")], body: Array("<html><body>502 Bad Gateway</body></html>".utf8), delay: .zero))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, code: .malformedResponse)
    }

    @Test func hangingBackendTimesOutTransiently() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let request = Duration.milliseconds(300)
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL, retries: 1, request: request))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        try await expectRetriedTransient(result, clock: clock, server: server, retries: 1, code: .timedOut)
    }

    @Test func stalledUploadIsAbortedTransiently() async throws {
        let server = try FaultServer(replies: [], then: .stallUpload(afterBytes: 64 * 1024))
        let stall = Duration.milliseconds(300)
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL, retries: 0, stall: stall))
        // Larger than every socket buffer between client and server, so the upload must stop.
        let chunk = TranscriptionRequest(audio: [UInt8](repeating: 7, count: 16 * 1024 * 1024), format: .flac)
        let result = await TestBackend.outcome { try await client.transcribe(chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .transient)
        #expect(error.code == .stalled)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
    }

    @Test func attemptTimeLimitCutsTheRequestShort() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let attempt = Duration.milliseconds(500)
        // The request's time counts against the attempt: this one runs on real time, which a
        // hanging server and curl's own timer spend.
        let client = TestBackend.client(clock: .continuous, TestBackend.configuration(url: server.baseURL, request: .seconds(30), attempt: attempt))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .transient)
        #expect(result.failure?.code == .timedOut)
        #expect(result.failure?.requests == 1, "the attempt's time was spent: no retry")
        #expect(server.requestCount == 1)
    }
}

@Suite struct URLValidationTests {
    @Test func nonHTTPURLIsConfigurationAndSendsNothing() async {
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: "file:///etc"))
        let error = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }.failure
        #expect(error?.failureClass == .configuration)
        #expect(error?.requests == 0)
    }
}

@Suite struct ConnectTimeoutTests {
    @Test func connectTimeoutIsTransient() async throws {
        let listener = try UnacceptingListener()
        var configuration = TestBackend.configuration(url: "http://127.0.0.1:\(listener.port)", retries: 1)
        let connect = Duration.milliseconds(300)
        configuration.limits.connect = connect
        let clock = ManualClock(advancingOnSleep: true)
        let result = await TestBackend.outcome { try await TestBackend.client(clock: clock, configuration).transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .transient)
        #expect(result.failure?.code == .timedOut)
        #expect(result.failure?.requests == 2)
        TestBackend.expectBackoffWaits(clock.sleeps, retries: 1)
    }
}
