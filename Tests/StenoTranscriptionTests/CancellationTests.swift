import Foundation
import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// A cancel stops an upload in flight, and no request starts after it.
///
/// These check that a cancel took effect and that nothing ran after it, never how many
/// milliseconds it took: how soon is the latency benchmark's to say (bench/cancel-latency).
@Suite struct CancellationTests {
    @Test func cancelSignalAbortsAStalledUploadInFlight() async throws {
        let server = try FaultServer(replies: [], then: .stallUpload(afterBytes: 32 * 1024))
        let clock = ManualClock()
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL, stall: .seconds(30)))
        let signal = CancellationSignal()
        let chunk = TranscriptionRequest(audio: [UInt8](repeating: 1, count: 16 * 1024 * 1024), format: .flac)
        let call = Task { await TestBackend.outcome { try await client.transcribe(chunk, cancellation: signal) } }
        try await poll(until: { server.requestCount == 1 })
        signal.cancel()
        let result = await call.value
        #expect(result.failure?.failureClass == .cancelled)
        #expect(result.failure?.requests == 1)
        // The call has returned, and a client starts nothing of its own: had the cancel been
        // missed, the stall would have been retried, and the clock never moved for a backoff.
        #expect(clock.sleeps.isEmpty)
        #expect(server.requestCount == 1)
    }

    @Test func taskCancellationAbortsAHangingRequest() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let call = Task { await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) } }
        try await poll(until: { server.requests.count == 1 })
        call.cancel()
        let result = await call.value
        #expect(result.failure?.failureClass == .cancelled)
        // The client closed its connection: the server sees it leave.
        try await poll(until: { server.openConnections == 0 })
        #expect(server.requestCount == 1)
    }

    @Test func cancelDuringBackoffStartsNoFurtherRequest() async throws {
        let server = try FaultServer(replies: [], then: .openAIError(503, message: "overloaded", type: "server_error", headers: [("Retry-After", "2")]))
        let clock = ManualClock()
        let client = TestBackend.client(clock: clock, TestBackend.configuration(url: server.baseURL))
        let signal = CancellationSignal()
        let call = Task { await TestBackend.outcome { try await client.transcribe(TestBackend.chunk, cancellation: signal) } }
        // The client is waiting out the backend's Retry-After on the clock.
        await clock.sleepers(atLeast: 1)
        #expect(clock.sleeps == [.seconds(2)])
        signal.cancel()
        let result = await call.value
        #expect(result.failure?.failureClass == .cancelled)
        #expect(result.failure?.requests == 1)
        // The time the backend named passes: no request follows.
        clock.advance(by: .seconds(5))
        #expect(server.requestCount == 1)
    }

    @Test func alreadyCancelledSignalSendsNothing() async throws {
        let server = try FaultServer(replies: [])
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let signal = CancellationSignal()
        signal.cancel()
        let result = await TestBackend.outcome { try await client.transcribe(TestBackend.chunk, cancellation: signal) }
        #expect(result.failure?.failureClass == .cancelled)
        #expect(result.failure?.requests == 0)
        #expect(server.requestCount == 0)
    }

    @Test func taskCancellationDoesNotCancelTheCallersSignal() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let jobSignal = CancellationSignal()
        let call = Task { await TestBackend.outcome { try await client.transcribe(TestBackend.chunk, cancellation: jobSignal) } }
        try await poll(until: { server.requests.count == 1 })
        call.cancel()
        #expect(await call.value.failure?.failureClass == .cancelled)
        #expect(!jobSignal.isCancelled)
    }
}
