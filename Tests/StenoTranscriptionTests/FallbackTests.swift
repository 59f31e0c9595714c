import StenoCore
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// A second backend takes a chunk over after the primary failed it N times.
@Suite struct FallbackTests {
    private func clients(primary: FaultServer, fallback: FaultServer, after: Int) -> FallbackTranscriptionClient {
        FallbackTranscriptionClient(
            primary: TestBackend.client(TestBackend.configuration(url: primary.baseURL, name: "primary", retries: 1)),
            fallback: TestBackend.client(TestBackend.configuration(url: fallback.baseURL, name: "fallback", retries: 1)),
            fallbackAfter: after)
    }

    @Test func fallbackAnswersWhenThePrimaryReachesItsFailureCount() async throws {
        let primary = try FaultServer(replies: [], then: .openAIError(503, message: "overloaded", type: "server_error"))
        let fallback = try FaultServer(replies: [])
        let result = try await clients(primary: primary, fallback: fallback, after: 2).transcribe(TestBackend.chunk, primaryFailures: 1)
        #expect(result.usedFallback)
        #expect(result.backend == "fallback")
        #expect(result.primaryFailure?.failureClass == .transient)
        #expect(result.primaryFailure?.backend == "primary")
        #expect(result.requests == 3)
        #expect(primary.requestCount == 2)
        #expect(fallback.requestCount == 1)
    }

    @Test func primaryFailureBelowTheCountIsReturned() async throws {
        let primary = try FaultServer(replies: [], then: .openAIError(503, message: "overloaded", type: "server_error"))
        let fallback = try FaultServer(replies: [])
        let result = await TestBackend.outcome {
            try await clients(primary: primary, fallback: fallback, after: 2).transcribe(TestBackend.chunk, primaryFailures: 0)
        }
        #expect(result.failure?.backend == "primary")
        #expect(result.failure?.failureClass == .transient)
        #expect(fallback.requestCount == 0)
    }

    @Test func chunkThatFailedEnoughGoesStraightToTheFallback() async throws {
        let primary = try FaultServer(replies: [])
        let fallback = try FaultServer(replies: [])
        let result = try await clients(primary: primary, fallback: fallback, after: 2).transcribe(TestBackend.chunk, primaryFailures: 2)
        #expect(result.usedFallback)
        #expect(result.primaryFailure == nil)
        #expect(primary.requestCount == 0)
        #expect(fallback.requestCount == 1)
    }

    @Test func requestErrorsDoNotMoveToTheFallback() async throws {
        let primary = try FaultServer(replies: [], then: .openAIError(400, message: "bad audio", type: "invalid_request_error"))
        let fallback = try FaultServer(replies: [])
        let result = await TestBackend.outcome {
            try await clients(primary: primary, fallback: fallback, after: 1).transcribe(TestBackend.chunk)
        }
        #expect(result.failure?.failureClass == .permanent)
        #expect(fallback.requestCount == 0)
    }

    @Test func revokedKeyOnThePrimaryMovesToTheFallback() async throws {
        let primary = try FaultServer(replies: [], then: .openAIError(401, message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key"))
        let fallback = try FaultServer(replies: [])
        let result = try await clients(primary: primary, fallback: fallback, after: 1).transcribe(TestBackend.chunk)
        #expect(result.usedFallback)
        #expect(result.primaryFailure?.failureClass == .configuration)
        #expect(primary.requestCount == 1)
    }
}
