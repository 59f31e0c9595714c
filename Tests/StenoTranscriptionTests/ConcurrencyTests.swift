import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Testing
@testable import StenoTranscription

/// Many uploads from one process at once, without holding Swift's cooperative threads.
///
/// Neither test times anything: twenty connections open at once show the uploads ran together,
/// and work finishing on the cooperative pool while twenty transfers hang shows the transfers do
/// not hold its threads (on two cores it has two; a transfer that held one would stop it).
@Suite(.timeLimit(.minutes(2))) struct ConcurrencyTests {
    @Test func twentyConcurrentUploadsRunTogether() async throws {
        let delay = Duration.milliseconds(600)
        let server = try FaultServer(replies: [], then: .json(200, FaultServer.minimalTranscription, delay: delay))
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let results = await withTaskGroup(of: Result<TranscriptionResult, TranscriptionError>.self) { group in
            for _ in 0..<20 {
                group.addTask { await TestBackend.outcome { try await client.transcribe(TestBackend.chunk) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.success?.transcription.text == "Hello from the fault server." })
        #expect(server.requestCount == 20)
        // Each answer is held back, so all twenty were open together, none waiting for another.
        #expect(server.mostOpenConnections == 20)
    }

    @Test func transfersInFlightLeaveTheCooperativePoolFree() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        let client = TestBackend.client(TestBackend.configuration(url: server.baseURL))
        let signal = CancellationSignal()
        let calls = (0..<20).map { _ in
            Task { await TestBackend.outcome { try await client.transcribe(TestBackend.chunk, cancellation: signal) } }
        }
        try await poll(until: { server.requests.count == 20 })
        // With 20 requests waiting on the backend, work on the cooperative pool still runs.
        let sum = await withTaskGroup(of: Int.self) { group in
            for index in 0..<64 { group.addTask { index } }
            return await group.reduce(0, +)
        }
        #expect(sum == 2016)
        signal.cancel()
        for call in calls {
            #expect(await call.value.failure?.failureClass == .cancelled)
        }
    }
}
