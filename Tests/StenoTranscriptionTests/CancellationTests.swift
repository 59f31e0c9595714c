import Foundation
import StenoCore
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// A cancel stops an upload in flight within 100 ms, and no request starts after it.
///
/// Serialized, and run by `scripts/test` in a process of its own: the bound is the client's, and
/// beside the other transcription tests on two cores it also measured how long the resumed task
/// waited for a free thread (104.5 ms once in CI).
@Suite(.serialized) struct CancellationTests {
    /// The bound from the issue, measured from the cancel to the call's return.
    static let bound = Duration.milliseconds(100)

    /// Runs `body` and notes when it returned, in the task that called it: the time to hand the
    /// result on to another task is not the client's.
    static func returning<T>(_ body: () async throws -> T) async -> (Result<T, TranscriptionError>, ContinuousClock.Instant) {
        let (result, _) = await TestBackend.timed(body)
        return (result, ContinuousClock.now)
    }

    @Test func cancelSignalAbortsAStalledUploadInFlight() async throws {
        let server = try FaultServer(replies: [], then: .stallUpload(afterBytes: 32 * 1024))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL, stall: .seconds(30)))
        let signal = CancellationSignal()
        let chunk = TranscriptionRequest(audio: [UInt8](repeating: 1, count: 16 * 1024 * 1024), format: .flac)
        let call = Task { await Self.returning { try await client.transcribe(chunk, cancellation: signal) } }
        try await waitUntil { server.requestCount == 1 }
        try await Task.sleep(for: .milliseconds(100))
        let cancelledAt = ContinuousClock.now
        signal.cancel()
        let (result, returnedAt) = await call.value
        let latency = returnedAt - cancelledAt
        #expect(result.failure?.failureClass == .cancelled)
        #expect(result.failure?.requests == 1)
        #expect(latency < Self.bound)
        // No request follows the cancel. (The server cannot see this client leave: its FIN waits
        // behind the unsent body in a window the server keeps full.)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.requestCount == 1)
    }

    @Test func taskCancellationAbortsAHangingRequest() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let call = Task { await Self.returning { try await client.transcribe(TestBackend.chunk) } }
        try await waitUntil { server.requests.count == 1 }
        let cancelledAt = ContinuousClock.now
        call.cancel()
        let (result, returnedAt) = await call.value
        let latency = returnedAt - cancelledAt
        #expect(result.failure?.failureClass == .cancelled)
        #expect(latency < Self.bound)
        // The client closed its connection: the server sees it leave.
        try await waitUntil { server.openConnections == 0 }
        #expect(server.requestCount == 1)
    }

    @Test func cancelDuringBackoffStartsNoFurtherRequest() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(503, message: "overloaded", type: "server_error", headers: [("Retry-After", "2")]))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let signal = CancellationSignal()
        let call = Task { await Self.returning { try await client.transcribe(TestBackend.chunk, cancellation: signal) } }
        try await waitUntil { server.requests.count == 1 }
        try await Task.sleep(for: .milliseconds(100))
        let cancelledAt = ContinuousClock.now
        signal.cancel()
        let (result, returnedAt) = await call.value
        #expect(returnedAt - cancelledAt < Self.bound)
        #expect(result.failure?.failureClass == .cancelled)
        #expect(result.failure?.requests == 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.requestCount == 1)
    }

    @Test func alreadyCancelledSignalSendsNothing() async throws {
        let server = try FaultServer(replies: [])
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let signal = CancellationSignal()
        signal.cancel()
        let (result, elapsed) = await TestBackend.timed { try await client.transcribe(TestBackend.chunk, cancellation: signal) }
        #expect(result.failure?.failureClass == .cancelled)
        #expect(result.failure?.requests == 0)
        #expect(elapsed < Self.bound)
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.requestCount == 0)
    }

    @Test func taskCancellationDoesNotCancelTheCallersSignal() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let jobSignal = CancellationSignal()
        let call = Task { await TestBackend.timed { try await client.transcribe(TestBackend.chunk, cancellation: jobSignal) } }
        try await waitUntil { server.requests.count == 1 }
        call.cancel()
        #expect(await call.value.0.failure?.failureClass == .cancelled)
        #expect(!jobSignal.isCancelled)
    }
}

/// Polls `condition` every few milliseconds for up to five seconds.
func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within 5 s")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
