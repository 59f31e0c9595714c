import Foundation
import StenoCore
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// Every outcome against a real misbehaving server: its class, the requests made, the time waited.
@Suite struct FailureClassificationTests {
    /// Checks a transient failure retried `retries` times, waiting the configured backoff between requests.
    private func expectRetriedTransient(
        _ result: Result<TranscriptionResult, TranscriptionError>, elapsed: Duration, server: FaultServer?, retries: Int = 3,
        code: TranscriptionError.Code, perRequest: Duration = .zero
    ) {
        let error = result.failure
        #expect(error?.failureClass == .transient)
        #expect(error?.code == code)
        #expect(error?.requests == retries + 1)
        if let server { #expect(server.requestCount == retries + 1) }
        let backoff = TestBackend.backoffTotal(retries: retries)
        #expect(elapsed >= backoff * (1 - TestBackend.jitter) + (perRequest - TestBackend.curlTimerGranularity) * (retries + 1))
        #expect(elapsed <= backoff * (1 + TestBackend.jitter) + perRequest * (retries + 1) + TestBackend.slack)
    }

    @Test(arguments: [408, 409, 500, 502, 503, 504])
    func serverSideStatusesAreTransientAndRetried(status: Int) async throws {
        let server = try FaultServer(replies: [], then: .openAIError(status, message: "The server had an error", type: "server_error"))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, code: .httpStatus)
        #expect(result.failure?.status == status)
        #expect(result.failure?.backendMessage == "The server had an error")
    }

    @Test func rateLimitIsTransientAndRetried() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(
            429, message: "Rate limit reached for whisper-1 in organization org-x on requests per min (RPM): Limit 50",
            type: "requests", code: "rate_limit_exceeded"))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, code: .httpStatus)
        #expect(result.failure?.backendCode == "rate_limit_exceeded")
    }

    @Test func transientFailureThenSuccessReturnsTheTranscription() async throws {
        let server = try FaultServer(replies: [.openAIError(503, message: "overloaded", type: "server_error"), .reset])
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
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
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .permanent)
        #expect(error.status == status)
        #expect(error.backendMessage == message)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        #expect(elapsed < TestBackend.slack)
    }

    @Test func fastAPIValidationDetailIsTheMessage() async throws {
        let server = try FaultServer(replies: [], then: .json(422, #"{"detail":[{"loc":["body","file"],"msg":"Field required","type":"missing"}]}"#))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let error = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }.0.failure
        #expect(error?.failureClass == .permanent)
        #expect(error?.backendMessage == "file: Field required", "the message names the field FastAPI found missing")
    }

    @Test func whisperCppErrorStringIsTheMessage() async throws {
        let server = try FaultServer(replies: [], then: .json(400, #"{"error":"failed to read audio data"}"#))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let error = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }.0.failure
        #expect(error?.failureClass == .permanent)
        #expect(error?.backendMessage == "failed to read audio data")
    }

    @Test func payloadTooLargeAsksForASplit() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(
            413, message: "Maximum content size limit (26214400) exceeded (26345678 bytes read)", type: "server_error"))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .tooLarge)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        #expect(error.backendMessage?.contains("26214400") == true)
        #expect(elapsed < TestBackend.slack)
    }

    @Test(arguments: [
        (401, "invalid_request_error", "invalid_api_key"),
        (403, "invalid_request_error", "unsupported_country_region_territory"),
        (429, "insufficient_quota", "insufficient_quota"),
    ])
    func credentialsAndQuotaAreConfiguration(status: Int, type: String, code: String) async throws {
        let server = try FaultServer(replies: [], then: .openAIError(status, message: "You cannot do this.", type: type, code: code))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .configuration)
        #expect(error.status == status)
        #expect(error.backendCode == code)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        #expect(elapsed < TestBackend.slack)
    }

    @Test func redirectIsConfiguration() async throws {
        let server = try FaultServer(replies: [], then: .json(301, "", headers: [("Location", "https://api.example.net/v1/audio/transcriptions")]))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let error = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }.0.failure
        #expect(error?.failureClass == .configuration)
        #expect(error?.code == .redirected)
        #expect(server.requestCount == 1)
    }

    // MARK: Transport

    @Test func connectionRefusedIsTransient() async throws {
        let port = try FaultServer.closedPort()
        let client = TestBackend.client(TestBackend.configuration(url: "http://127.0.0.1:\(port)"))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: nil, code: .connectionFailed)
    }

    @Test func unresolvableHostIsTransient() async throws {
        // RFC 6761: names under .invalid never resolve.
        let client = TestBackend.client(TestBackend.configuration(url: "http://steno-backend.invalid", retries: 1))
        let (result, _) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .transient)
        #expect(result.failure?.code == .connectionFailed)
        #expect(result.failure?.requests == 2)
    }

    @Test func tlsHandshakeFailureIsTransient() async throws {
        let server = try FaultServer(replies: [])
        let client = TestBackend.client(TestBackend.configuration(url: "https://127.0.0.1:\(server.port)"))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, code: .connectionFailed)
        #expect(result.failure?.message.contains("TLS") == true)
    }

    @Test func connectionResetIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .reset)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, code: .transferFailed)
    }

    @Test func garbageReplyIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .garbage)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, code: .transferFailed)
    }

    @Test func truncatedBodyIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .truncated(status: 200, body: Array(#"{"text":"Hello, wor"#.utf8), declaredLength: 400))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, code: .transferFailed)
    }

    @Test func malformed2xxBodyIsTransient() async throws {
        let server = try FaultServer(replies: [], then: .respond(
            status: 200, headers: [("Content-Type", "text/html")], body: Array("<html><body>502 Bad Gateway</body></html>".utf8), delay: .zero))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, code: .malformedResponse)
    }

    @Test func hangingBackendTimesOutTransiently() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let request = Duration.milliseconds(300)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL, retries: 1, request: request))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        expectRetriedTransient(result, elapsed: elapsed, server: server, retries: 1, code: .timedOut, perRequest: request)
    }

    @Test func stalledUploadIsAbortedTransiently() async throws {
        let server = try FaultServer(replies: [], then: .stallUpload(afterBytes: 64 * 1024))
        let stall = Duration.milliseconds(300)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL, retries: 0, stall: stall))
        // Larger than every socket buffer between client and server, so the upload must stop.
        let chunk = TranscriptionRequest(audio: [UInt8](repeating: 7, count: 16 * 1024 * 1024), format: .flac)
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .transient)
        #expect(error.code == .stalled)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        #expect(elapsed >= stall)
        #expect(elapsed < stall + TestBackend.slack)
    }

    @Test func attemptTimeLimitCutsTheRequestShort() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let attempt = Duration.milliseconds(500)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL, request: .seconds(30), attempt: attempt))
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .transient)
        #expect(result.failure?.code == .timedOut)
        #expect(result.failure?.requests == 1)
        #expect(elapsed >= attempt - TestBackend.curlTimerGranularity)
        #expect(elapsed < attempt + TestBackend.slack)
    }
}

@Suite struct URLValidationTests {
    @Test func nonHTTPURLIsConfigurationAndSendsNothing() async {
        let client = TestBackend.client(TestBackend.configuration(url: "file:///etc"))
        let error = await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }.0.failure
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
        let (result, elapsed) = await TestBackend.timed { try await TestBackend.client(configuration).transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .transient)
        #expect(result.failure?.code == .timedOut)
        #expect(result.failure?.requests == 2)
        #expect(elapsed >= (connect - TestBackend.curlTimerGranularity) * 2 + TestBackend.backoffBase * (1 - TestBackend.jitter))
        #expect(elapsed < connect * 2 + TestBackend.backoffBase * (1 + TestBackend.jitter) + TestBackend.slack)
    }
}
