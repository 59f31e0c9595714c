import StenoCore
import StenoInfrastructure
import Synchronization
import StenoTestSupport
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
        var now: Int { counts.withLock { $0.now } }
        var peak: Int { counts.withLock { $0.peak } }
        func reset() { counts.withLock { $0 = (0, 0) } }
        func enter() { counts.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
        func leave() { counts.withLock { $0.now -= 1 } }
    }

    /// Holds the requests until the test opens it: how many get in at once then depends on the
    /// limiter alone, not on how fast a loaded machine runs them.
    final class Gate: Sendable {
        private let latch = Latch()
        func pass() async throws {
            guard await latch.wait() else { throw CancellationError() }
        }
        func release() { latch.open() }
    }

    static func run(_ limiter: AdaptiveLimiter, _ peak: Peak, _ outcome: AdaptiveLimiter.Outcome, through gate: Gate? = nil) async throws {
        try await limiter.withPermit(classify: { _ in outcome }) {
            peak.enter()
            try await gate?.pass()
            peak.leave()
        }
    }

    /// Runs `count` requests held at a gate; checks that exactly `limit` get in, then lets all through.
    static func holdAtGate(_ limiter: AdaptiveLimiter, _ peak: Peak, count: Int, limit: Int, _ outcome: AdaptiveLimiter.Outcome) async throws {
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count { group.addTask { try await Self.run(limiter, peak, outcome, through: gate) } }
            // Every request has either got in or is waiting for a permit: none is still on its way.
            try await poll(until: { peak.now == limit && limiter.waiting == count - limit }, "\(limit) requests in flight, the rest waiting")
            #expect(peak.peak == limit)
            gate.release()
            try await group.waitForAll()
        }
        #expect(peak.peak == limit)
    }

    @Test("no more requests in flight than the window allows; a timeout lowers it for those waiting")
    func limiterBoundsConcurrency() async throws {
        let limiter = AdaptiveLimiter(maximum: 4)
        let peak = Peak()
        try await Self.holdAtGate(limiter, peak, count: 16, limit: 4, .answered)
        try await Self.run(limiter, peak, .timedOut)
        #expect(limiter.limit == 2)
        peak.reset()
        try await Self.holdAtGate(limiter, peak, count: 4, limit: 2, .other)
    }

    @Test("a caller cancelled while waiting leaves at once and does not take a permit")
    func cancelledWaiter() async throws {
        let limiter = AdaptiveLimiter(maximum: 1)
        let gate = Gate()
        let holder = Task { try await limiter.withPermit(classify: { _ in .other }) { try await gate.pass() } }
        try await poll(until: { limiter.inFlight == 1 }, "the holder has the permit")
        let waiter = Task { try await limiter.withPermit(classify: { _ in .other }) { 1 } }
        try await poll(until: { limiter.waiting == 1 }, "the waiter waits")
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(limiter.inFlight == 1)
        #expect(limiter.waiting == 0)
        gate.release()
        _ = await holder.result
        #expect(limiter.inFlight == 0)
    }
}
