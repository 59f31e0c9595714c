import StenoCore
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// Many uploads from one process at once, without holding Swift's cooperative threads.
///
/// Serialized, and run by `scripts/test` beside the cancellation bounds only: a free cooperative
/// pool is what one test measures, and other tests would take it.
@Suite(.serialized) struct ConcurrencyTests {
    @Test func twentyConcurrentUploadsRunTogether() async throws {
        let delay = Duration.milliseconds(600)
        let server = try FaultServer(replies: [], then: .json(200, FaultServer.minimalTranscription, delay: delay))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let start = ContinuousClock.now
        let results = await withTaskGroup(of: Result<TranscriptionResult, TranscriptionError>.self) { group in
            for _ in 0..<20 {
                group.addTask { await TestBackend.timed { try await client.transcribe(TestBackend.chunk) }.0 }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - start
        #expect(results.allSatisfy { $0.success?.transcription.text == "Hello from the fault server." })
        #expect(server.requestCount == 20)
        #expect(server.mostOpenConnections == 20)
        // One after another they would take 20 x 600 ms.
        #expect(elapsed < delay + TestBackend.slack)
    }

    @Test func transfersInFlightLeaveTheCooperativePoolFree() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let signal = CancellationSignal()
        let calls = (0..<20).map { _ in
            Task { await TestBackend.timed { try await client.transcribe(TestBackend.chunk, cancellation: signal) }.0 }
        }
        try await waitUntil { server.requests.count == 20 }
        // With 20 requests waiting on the backend, work on the cooperative pool still runs at once.
        let start = ContinuousClock.now
        let sum = await withTaskGroup(of: Int.self) { group in
            for index in 0..<64 { group.addTask { index } }
            return await group.reduce(0, +)
        }
        #expect(sum == 2016)
        #expect(ContinuousClock.now - start < .milliseconds(100))
        signal.cancel()
        for call in calls {
            #expect(await call.value.failure?.failureClass == .cancelled)
        }
    }
}
