import StenoCore
import Testing

@Suite("Token bucket")
struct TokenBucketTests {
    @Test("a full bucket lets a minute's requests through at once, then one per refill")
    func requestsPerMinute() {
        let limit = RateLimit(requestsPerMinute: 20)
        var bucket = TokenBucket.full(limit, at: 1000)
        for _ in 0..<20 { #expect(bucket.take(audio: 30, limit: limit, at: 1000) == .granted) }
        guard case .wait(let seconds) = bucket.take(audio: 30, limit: limit, at: 1000) else {
            Issue.record("the 21st request in the same instant must wait")
            return
        }
        #expect(abs(seconds - 3) < 1e-9, "20 a minute: one every 3 s")
        #expect(bucket.take(audio: 30, limit: limit, at: 1002.9) != .granted)
        #expect(bucket.take(audio: 30, limit: limit, at: 1003.0) == .granted)
    }

    @Test("audio seconds an hour: a request waits for its audio's share, and one longer than the hour needs only a full bucket")
    func audioSecondsPerHour() {
        let limit = RateLimit(audioSecondsPerHour: 3600)
        var bucket = TokenBucket.full(limit, at: 0)
        #expect(bucket.take(audio: 3000, limit: limit, at: 0) == .granted)
        #expect(bucket.take(audio: 700, limit: limit, at: 0) == .wait(100))
        #expect(bucket.audioSeconds == 600)
        #expect(bucket.take(audio: 600, limit: limit, at: 0) == .granted)
        #expect(bucket.take(audio: 60, limit: limit, at: 0) == .wait(60))
        // Refilled at one audio second per second, never past the hour's worth.
        #expect(bucket.take(audio: 7200, limit: limit, at: 10_000) == .granted)
        #expect(bucket.audioSeconds == 0)
    }

    @Test("with both limits the longer wait counts, and nothing is taken from either while waiting")
    func bothLimits() {
        let limit = RateLimit(requestsPerMinute: 60, audioSecondsPerHour: 360)
        var bucket = TokenBucket(requests: 0.5, audioSeconds: 10, refilledAt: 0)
        // Requests: half a token short, 0.5 s. Audio: 50 s short at 0.1 s/s, 500 s.
        #expect(bucket.take(audio: 60, limit: limit, at: 0) == .wait(500))
        #expect(bucket.requests == 0.5 && bucket.audioSeconds == 10)
        #expect(bucket.take(audio: 60, limit: limit, at: 500) == .granted)
    }

    @Test("a clock that steps back refills nothing and never empties the bucket")
    func clockStepsBack() {
        let limit = RateLimit(requestsPerMinute: 6)
        var bucket = TokenBucket(requests: 2, audioSeconds: 0, refilledAt: 100)
        #expect(bucket.take(audio: 0, limit: limit, at: 90) == .granted)
        #expect(bucket.requests == 1 && bucket.refilledAt == 100)
    }
}
