import StenoCore
import Testing

/// The one rule for a failed attempt: retry when, fail, pause the backend, wait out an outage, or
/// hand the job back.
@Suite struct FailureActionTests {
    let backoff = RetryBackoff(base: .seconds(10), cap: .seconds(100), jitter: 0)

    private func decide(
        _ failureClass: FailureClass, attempt: Int = 1, kind: JobKind = .chunk, down: Bool = false, slow: Bool = false,
        window: Double = 8, outagesPause: Bool = true, retryAfter: Duration? = nil
    ) -> FailureAction {
        FailureAction.decide(
            failureClass, attempt: attempt, kind: kind, backendDown: down, backendSlow: slow, requestWindow: window,
            outagesPause: outagesPause, retryAfter: retryAfter, backoff: backoff, configurationPause: .seconds(300))
    }

    @Test("transient, internal and lost-lease failures retry after a backoff that grows with the attempt")
    func retries() {
        #expect(decide(.transient, attempt: 1) == .retry(after: backoff.delay(afterAttempt: 1)))
        #expect(decide(.internal, attempt: 3) == .retry(after: backoff.delay(afterAttempt: 3)))
        #expect(decide(.lostLease, attempt: 2) == .retry(after: backoff.delay(afterAttempt: 2)))
        #expect(backoff.delay(afterAttempt: 3) > backoff.delay(afterAttempt: 1))
    }

    @Test("a backend's Retry-After longer than the backoff is honoured, a shorter one is not")
    func retryAfter() {
        #expect(decide(.transient, retryAfter: .seconds(90)) == .retry(after: .seconds(90)))
        #expect(decide(.transient, retryAfter: .seconds(1)) == .retry(after: backoff.delay(afterAttempt: 1)))
    }

    @Test("a backend that is down postpones chunk jobs with the attempt given back; other kinds and a fleet with a fallback retry")
    func outages() {
        #expect(decide(.transient, down: true) == .postponeForOutage)
        #expect(decide(.transient, kind: .chapter, down: true) == .retry(after: backoff.delay(afterAttempt: 1)))
        #expect(decide(.transient, down: true, outagesPause: false) == .retry(after: backoff.delay(afterAttempt: 1)))
    }

    @Test("an object store that does not answer makes every kind of job wait for it, its try given back, after a growing backoff")
    func storeDown() {
        for kind in [JobKind.media, .chapter, .chunk, .merge] {
            let action = FailureAction.decide(
                .transient, attempt: 3, kind: kind, backendDown: false, backendSlow: false, requestWindow: 8, outagesPause: true,
                retryAfter: nil, backoff: backoff, configurationPause: .seconds(300), storeDown: true)
            #expect(action == .waitForStore(after: backoff.delay(afterAttempt: 3)))
        }
        // A store that refuses the credentials is a configuration matter, not an outage.
        let refused = FailureAction.decide(
            .configuration, attempt: 1, kind: .chunk, backendDown: false, backendSlow: false, requestWindow: 8, outagesPause: true,
            retryAfter: nil, backoff: backoff, configurationPause: .seconds(300), storeDown: true)
        #expect(refused == .pauseBackend(for: .seconds(300)))
    }

    @Test("a slow backend counts as down only once the worker's request window is down to one")
    func slowBackend() {
        #expect(decide(.transient, slow: true, window: 4) == .retry(after: backoff.delay(afterAttempt: 1)))
        #expect(decide(.transient, slow: true, window: 1) == .postponeForOutage)
    }

    @Test("a refused configuration pauses the backend; cancelled is handed back; permanent, media and too-large fail")
    func endings() {
        #expect(decide(.configuration) == .pauseBackend(for: .seconds(300)))
        #expect(decide(.cancelled) == .release)
        #expect(decide(.permanent) == .fail)
        #expect(decide(.media) == .fail)
        #expect(decide(.tooLarge) == .fail)
    }
}
