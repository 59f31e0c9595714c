import StenoCore
import Testing

@Suite("request rate per key")
struct RequestRateTests {
    @Test("a burst passes, the next waits for one token at the rate, and time refills")
    func bucket() {
        let rate = RequestRate(requestsPerSecond: 2, burst: 3)
        var bucket = rate.fullBucket(at: 0)
        #expect((0..<3).map { _ in rate.take(from: &bucket, at: 0) } == [.allowed, .allowed, .allowed])
        #expect(rate.take(from: &bucket, at: 0) == .refused(retryAfter: 0.5))
        #expect(rate.take(from: &bucket, at: 0.5) == .allowed)
        #expect(rate.take(from: &bucket, at: 100) == .allowed)
        // Refilled to the burst, not beyond.
        #expect((0..<2).map { _ in rate.take(from: &bucket, at: 100) } == [.allowed, .allowed])
        #expect(rate.take(from: &bucket, at: 100) != .allowed)
    }

    @Test("a clock that steps back refills nothing")
    func clockBack() {
        let rate = RequestRate(requestsPerSecond: 1, burst: 1)
        var bucket = rate.fullBucket(at: 10)
        #expect(rate.take(from: &bucket, at: 10) == .allowed)
        #expect(rate.take(from: &bucket, at: 5) != .allowed)
    }
}
