import Foundation
import StenoCore
import Testing

@Suite("MediaHold")
struct MediaHoldTests {
    private func facts(
        finished: Bool = false, queuedChunks: Int = 0, retrying: Int = 0, live: Int = 2, paused: [String: Date] = [:]
    ) -> MediaHold.Facts {
        MediaHold.Facts(
            mediaFinished: finished, queuedChunkJobs: queuedChunks, retryingJobs: retrying,
            nextRetryAt: retrying > 0 ? Date(timeIntervalSince1970: 1_000_030) : nil, highestAttempt: retrying > 0 ? 3 : 0,
            maxAttempts: retrying > 0 ? 5 : 0, lastError: retrying > 0 ? "HTTP 503: backend busy" : nil, liveWorkers: live,
            pausedBackends: paused, pauseMessage: paused.isEmpty ? nil : "HTTP 401: invalid API key")
    }

    @Test("nothing holds a media that moves, or one that finished")
    func nothing() {
        #expect(MediaHold.holds(facts(), now: Date(timeIntervalSince1970: 1_000_000)).isEmpty)
        #expect(MediaHold.holds(facts(finished: true, retrying: 2, live: 0, paused: ["primary": Date(timeIntervalSince1970: 1_000_100)]), now: Date(timeIntervalSince1970: 1_000_000)).isEmpty)
    }

    @Test("a paused backend holds a media only while it has chunk jobs queued, and says what to fix")
    func paused() {
        let pause = ["primary": Date(timeIntervalSince1970: 2_000_000)]
        #expect(MediaHold.holds(facts(queuedChunks: 0, paused: pause), now: Date(timeIntervalSince1970: 1_000_000)).isEmpty)
        let holds = MediaHold.holds(facts(queuedChunks: 4, paused: pause), now: Date(timeIntervalSince1970: 1_000_000))
        #expect(holds.map(\.kind) == [.backendPaused])
        #expect(holds[0].message.contains("backend primary refused the configuration"))
        #expect(holds[0].message.contains("HTTP 401: invalid API key"))
    }

    @Test("retries say how many, which attempt, when next, and the last error; no workers is said first")
    func retryingWithoutWorkers() {
        let holds = MediaHold.holds(facts(retrying: 2, live: 0), now: Date(timeIntervalSince1970: 1_000_000))
        #expect(holds.map(\.kind) == [.noWorkers, .waitingToRetry])
        #expect(holds[1].message == "2 jobs waiting to retry after failing (attempt 3 of 5 so far), next in 30 s; last error: HTTP 503: backend busy")
    }

    @Test("a quarantined job holds its media with the evidence its reason names")
    func quarantined() {
        var held = facts()
        held.quarantinedJobs = 1
        held.quarantineReason = "quarantined, runs alone after 1 s: its worker's process crashed once while running it (SIGSEGV); it fails at 4 such deaths"
        let holds = MediaHold.holds(held, now: Date(timeIntervalSince1970: 1_000_000))
        #expect(holds.map(\.kind) == [.quarantined])
        #expect(holds[0].message == "1 job quarantined (\(held.quarantineReason!))")
        #expect(MediaHold.holds({ var done = held; done.mediaFinished = true; return done }(), now: Date(timeIntervalSince1970: 1_000_000)).isEmpty)
    }
}
