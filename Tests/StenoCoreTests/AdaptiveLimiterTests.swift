import StenoCore
import Synchronization
import Testing

@Suite("AIMD window and adaptive limiter")
struct AdaptiveLimiterTests {
    @Test("a timeout halves the limit down to one; answers add one over the limit each, back up to the maximum")
    func window() {
        var window = AIMDWindow(maximum: 8)
        #expect(window.permits == 8)
        window.timedOut()
        #expect(window.permits == 4)
        window.timedOut()
        window.timedOut()
        window.timedOut()
        #expect(window.permits == 1, "never below one request")
        for _ in 0..<3 { window.answered() }
        #expect(window.permits == 2, "1 + 1 + 1/2 + 1/2.5 ...: additive, about one per round of answers")
        for _ in 0..<200 { window.answered() }
        #expect(window.permits == 8, "never above the maximum")
    }

    /// Counts requests in flight and the most seen at once.
    final class Peak: Sendable {
        private let counts = Mutex((now: 0, peak: 0))
        var peak: Int { counts.withLock { $0.peak } }
        func reset() { counts.withLock { $0 = (0, 0) } }
        func enter() { counts.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
        func leave() { counts.withLock { $0.now -= 1 } }
    }

    static func run(_ limiter: AdaptiveLimiter, _ peak: Peak, _ outcome: AdaptiveLimiter.Outcome) async throws {
        try await limiter.withPermit(classify: { _ in outcome }) {
            peak.enter()
            try await Task.sleep(for: .milliseconds(20))
            peak.leave()
        }
    }

    @Test("no more requests in flight than the window allows; a timeout lowers it for those waiting")
    func limiterBoundsConcurrency() async throws {
        let limiter = AdaptiveLimiter(maximum: 4)
        let peak = Peak()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { try await Self.run(limiter, peak, .answered) } }
            try await group.waitForAll()
        }
        #expect(peak.peak == 4)
        try await Self.run(limiter, peak, .timedOut)
        #expect(limiter.limit == 2)
        peak.reset()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await Self.run(limiter, peak, .other) } }
            try await group.waitForAll()
        }
        #expect(peak.peak == 2, "after a timeout only two requests at a time")
    }

    @Test("a caller cancelled while waiting leaves at once and does not take a permit")
    func cancelledWaiter() async throws {
        let limiter = AdaptiveLimiter(maximum: 1)
        let holder = Task { try await limiter.withPermit(classify: { _ in .other }) { try await Task.sleep(for: .seconds(1)) } }
        try await Task.sleep(for: .milliseconds(50))
        let waiter = Task { try await limiter.withPermit(classify: { _ in .other }) { 1 } }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(limiter.inFlight == 1)
        holder.cancel()
        _ = await holder.result
        #expect(limiter.inFlight == 0)
    }
}
