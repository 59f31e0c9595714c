/// A clock whose sleeps end at once: the store client's backoff between tries, in a test that
/// wants the tries and not the waiting.
struct InstantClock: Clock {
    typealias Instant = ContinuousClock.Instant
    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
    }
}
