import Foundation
import StenoCore
import StenoTestSupport
import Testing
@testable import StenoTranscription

#if canImport(Glibc)
import Glibc
import StenoInfrastructure
#endif

/// The API key never appears in an error, a log line, or curl's output, on any path, even when
/// the backend echoes the request back.
@Suite struct KeyLeakTests {
    private static let key = TestBackend.apiKey
    private static let extraHeaderSecret = TestSecret.make("org-secret")

    /// Answers by echoing the credentials back everywhere a response can carry text.
    private static func echoingServer(status: Int) throws -> FaultServer {
        try FaultServer(replies: [], then: .echo(status: status) { request in
            let authorization = request.header("Authorization") ?? ""
            let organization = request.header("OpenAI-Organization") ?? ""
            let body = #"{"error":{"message":"Bad request from \#(authorization) (key \#(authorization.dropFirst(7))), org \#(organization)","type":"\#(authorization)","code":"\#(authorization.dropFirst(7))"}}"#
            return ([("x-request-id", String(authorization.dropFirst(7))), ("Location", "https://u:\(authorization.dropFirst(7))@example.net/")], body)
        })
    }

    /// Short limits only where a test waits for one to pass (a server that hangs or stalls on
    /// purpose); an answer that is merely slow on a loaded machine must not time out.
    private static func configuration(
        url: String, retries: Int = 1, request: Duration = TestBackend.generousLimit, stall: Duration = TestBackend.generousLimit
    ) -> TranscriptionBackendConfiguration {
        var configuration = TestBackend.configuration(url: url, retries: retries, request: request, stall: stall)
        configuration.extraHeaders = [("OpenAI-Organization", extraHeaderSecret)]
        return configuration
    }

    /// Everything a caller could log, store or print about `error`, and every log line.
    private static func expectNoSecret(in error: TranscriptionError?, logs: LogCapture, _ path: String) {
        var dumped = ""
        dump(error, to: &dumped)
        let texts = [String(describing: error), String(reflecting: error), dumped] + logs.all
        for text in texts {
            #expect(!text.contains(key), "key leaked on path \(path): \(text)")
            #expect(!text.contains(extraHeaderSecret), "extra header value leaked on path \(path): \(text)")
        }
        #expect(error != nil, "path \(path) should fail")
        #expect(!logs.all.isEmpty, "path \(path) should log")
    }

    @Test(arguments: [301, 400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 500, 502, 503, 504, 200])
    func echoedCredentialsAreRedactedForEveryStatus(status: Int) async throws {
        let server = try Self.echoingServer(status: status)
        let logs = LogCapture()
        let client = TestBackend.client(Self.configuration(url: server.baseURL), logs: logs)
        let error = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }.failure
        // The key did reach the backend and came back in its answer.
        #expect(server.requests.first?.header("Authorization") == "Bearer \(Self.key)")
        Self.expectNoSecret(in: error, logs: logs, "HTTP \(status)")
        if status != 301 {
            #expect(error?.backendMessage?.contains(SecretRedactor.replacement) == true)
        }
    }

    @Test func transportFailuresCarryNoSecret() async throws {
        let closedPort = try FaultServer.closedPort()
        let hanging = try FaultServer(replies: [], then: .hang)
        let stalling = try FaultServer(replies: [], then: .stallUpload(afterBytes: 1024))
        let resetting = try FaultServer(replies: [], then: .reset)
        let garbage = try FaultServer(replies: [], then: .garbage)
        let truncated = try FaultServer(replies: [], then: .truncated(status: 200, body: Array("{\"text\":".utf8), declaredLength: 100))
        // The last field: whether the path waits for a limit (a hanging handshake or answer, a
        // stalled upload), which is then short.
        let paths: [(String, String, [UInt8], Bool)] = [
            ("connection refused", "http://127.0.0.1:\(closedPort)", TestBackend.chunkAudio, false),
            ("dns", "http://steno-backend.invalid", TestBackend.chunkAudio, false),
            ("tls", "https://127.0.0.1:\(hanging.port)", TestBackend.chunkAudio, true),
            ("timeout", hanging.baseURL, TestBackend.chunkAudio, true),
            ("stall", stalling.baseURL, [UInt8](repeating: 0, count: 16 * 1024 * 1024), true),
            ("reset", resetting.baseURL, TestBackend.chunkAudio, false),
            ("garbage", garbage.baseURL, TestBackend.chunkAudio, false),
            ("truncated", truncated.baseURL, TestBackend.chunkAudio, false),
        ]
        for (path, url, audio, waitsForLimit) in paths {
            let logs = LogCapture()
            let limit = waitsForLimit ? Duration.milliseconds(400) : TestBackend.generousLimit
            let client = TestBackend.client(Self.configuration(url: url, retries: 0, request: limit, stall: limit), logs: logs)
            let request = TranscriptionRequest(audio: audio, format: .wav)
            let error = await TestBackend.outcome { try await client.transcribe(request) }.failure
            Self.expectNoSecret(in: error, logs: logs, path)
        }
    }

    @Test func cancelledCallCarriesNoSecret() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let logs = LogCapture()
        let client = TestBackend.client(Self.configuration(url: server.baseURL), logs: logs)
        let signal = CancellationSignal()
        let call = Task { await TestBackend.outcome { try await client.transcribe(TestBackend.chunk, cancellation: signal) } }
        try await poll(until: { server.requests.count == 1 })
        signal.cancel()
        Self.expectNoSecret(in: await call.value.failure, logs: logs, "cancelled")
    }

    @Test func configurationAndKeyDescriptionsHideTheKey() throws {
        let configuration = Self.configuration(url: "https://user:\(Self.key)@api.example.net/v1")
        var dumped = ""
        dump(configuration, to: &dumped)
        let texts = [
            String(describing: configuration), configuration.displayURL, String(describing: configuration.apiKey),
            String(reflecting: configuration.apiKey as Any), "\(configuration.apiKey as Any)", dumped,
        ]
        #expect(dumped.contains("source"))
        for text in texts {
            #expect(!text.contains(Self.key))
            #expect(!text.contains(Self.extraHeaderSecret))
        }
        #expect(configuration.displayURL == "https://api.example.net/v1/audio/transcriptions")
    }

    @Test func unreadableKeyFileErrorNamesTheVariableOnly() {
        #expect {
            try TranscriptionBackendConfiguration.fromEnvironment([
                "STENO_BACKEND_URL": "http://127.0.0.1:9", "STENO_API_KEY": Self.key, "STENO_API_KEY_FILE": "/nonexistent/steno-key",
            ])
        } throws: { error in
            let text = String(describing: error)
            return text.contains("STENO_API_KEY_FILE") && !text.contains(Self.key)
        }
    }

    /// curl prints request headers, the Authorization line among them, only in verbose mode.
    /// Nothing of a failing request may reach stderr.
    @Test func curlWritesNothingToStandardError() async throws {
        let server = try Self.echoingServer(status: 400)
        let client = TestBackend.client(Self.configuration(url: server.baseURL, retries: 0))
        let captured = try await Self.capturingStandardError {
            _ = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        }
        #expect(server.requestCount == 1)
        // The whole process's stderr is captured, the test runner's own lines included (a test's
        // arguments may name a header): curl's verbose lines start with "> " and "< ".
        #expect(!captured.contains(Self.key))
        #expect(!captured.contains("> Authorization"))
        #expect(!captured.contains("> POST"))
    }

    /// Points file descriptor 2 at a temporary file while `body` runs, then restores it and
    /// passes the captured text on to the real stderr so nothing of other tests is lost.
    private static func capturingStandardError(_ body: () async -> Void) async throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-stderr-\(UUID().uuidString)").path
        let file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard file >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(file); unlink(path) }
        fflush(nil)  // every C stream; stderr itself is unbuffered
        let saved = dup(STDERR_FILENO)
        dup2(file, STDERR_FILENO)
        await body()
        fflush(nil)  // every C stream; stderr itself is unbuffered
        dup2(saved, STDERR_FILENO)
        close(saved)
        let captured = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        FileHandle.standardError.write(Data(captured.utf8))
        return captured
    }
}
