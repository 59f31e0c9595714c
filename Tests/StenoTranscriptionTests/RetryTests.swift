import Foundation
import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// Waits between requests: the backend's Retry-After, OpenAI's retry-after-ms, and x-should-retry.
@Suite struct RetryTests {
    @Test func retryAfterSecondsIsHonoured() async throws {
        let server = try FaultServer(replies: [.openAIError(429, message: "slow down", type: "requests", code: "rate_limit_exceeded", headers: [("Retry-After", "1")])])
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        #expect(result.success?.requests == 2)
        #expect(server.requestCount == 2)
        #expect(clock.sleeps == [.seconds(1)])
    }

    @Test func retryAfterMillisecondsWinsOverSeconds() async throws {
        let server = try FaultServer(replies: [.openAIError(
            503, message: "overloaded", type: "server_error", headers: [("retry-after-ms", "350"), ("Retry-After", "30")])])
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        #expect(result.success?.requests == 2)
        #expect(clock.sleeps == [.milliseconds(350)])
    }

    @Test func retryAfterHTTPDateIsHonoured() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // The client reads the date against its clock's wall time, which stands still here.
        let clock = ManualClock(advancingOnSleep: true)
        let date = formatter.string(from: clock.date.addingTimeInterval(3))
        let server = try FaultServer(replies: [.openAIError(503, message: "maintenance", type: "server_error", headers: [("Retry-After", date)])])
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL, longestRetryAfter: .seconds(5)))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        #expect(result.success?.requests == 2)
        #expect(clock.sleeps == [.seconds(3)])
    }

    @Test func retryAfterLongerThanTheAttemptCanWaitIsHandedBack() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(
            429, message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded", headers: [("Retry-After", "3600")]))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        let error = try #require(result.failure)
        #expect(error.failureClass == .transient)
        #expect(error.requests == 1)
        #expect(server.requestCount == 1)
        let retryAt = try #require(error.retryAt)
        #expect(retryAt == clock.date.addingTimeInterval(3600), "an hour after the answer, by the client's clock")
        #expect(clock.sleeps.isEmpty, "handed back without a wait")
    }

    @Test func shouldRetryTrueMakesARequestErrorTransient() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(400, message: "try again", type: "invalid_request_error", headers: [("x-should-retry", "true")]))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .transient)
        #expect(server.requestCount == 4)
        TestBackend.expectBackoffWaits(clock.sleeps, retries: 3)
    }

    @Test func shouldRetryFalseStopsAServerError() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(503, message: "do not retry", type: "server_error", headers: [("x-should-retry", "false")]))
        let clock = ManualClock(advancingOnSleep: true)
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) }
        #expect(result.failure?.failureClass == .permanent)
        #expect(result.failure?.requests == 1)
        #expect(server.requestCount == 1)
        #expect(clock.sleeps.isEmpty, "answered without a wait")
    }

    @Test func backoffGrowsAndIsCapped() {
        let policy = TranscriptionRetryPolicy()
        var generator = SystemRandomNumberGenerator()
        let delays = (1...5).map { policy.backoff.delay(afterAttempt: $0, using: &generator).seconds }
        for (delay, expected) in zip(delays, [1.0, 2, 4, 4, 4]) {
            #expect(delay >= expected * 0.8 && delay <= expected * 1.2)
        }
    }

    @Test func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func delay(_ headers: [String: String]) -> Duration? {
            RetryAfter.delay(in: HTTPResponse(status: 429, headers: headers, body: []), now: now)
        }
        #expect(delay(["retry-after": "7"]) == .seconds(7))
        #expect(delay(["retry-after": "0.5"]) == .milliseconds(500))
        #expect(delay(["retry-after-ms": "1200", "retry-after": "7"]) == .milliseconds(1200))
        #expect(delay(["retry-after": "Tue, 14 Nov 2023 22:13:30 GMT"]) == .seconds(10))
        #expect(delay(["retry-after": "Tue, 14 Nov 2023 22:13:10 GMT"]) == nil)
        #expect(delay(["retry-after": "soon"]) == nil)
        #expect(delay([:]) == nil)
    }
}
