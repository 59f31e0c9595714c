import StenoCore
import Testing

@Suite("The overview's estimate of when the backlog is done")
struct BacklogEstimateTests {
    @Test("the remaining audio over the recent pace")
    func eta() {
        // Two hours of audio done in the last hour: an hour of audio left takes half an hour.
        let estimate = BacklogEstimate(remainingAudioSeconds: 3600, audioSecondsDone: 7200, workingFor: 5000)
        #expect(estimate.windowSeconds == 3600)
        #expect(estimate.speed == 2)
        #expect(estimate.eta == .seconds(1800))
        #expect(estimate.description == "in about 30:00")
    }

    @Test("a fleet that began five minutes ago is judged by those five minutes")
    func shortWindow() {
        let estimate = BacklogEstimate(remainingAudioSeconds: 600, audioSecondsDone: 3000, workingFor: 300)
        #expect(estimate.windowSeconds == 300)
        #expect(estimate.speed == 10)
        #expect(estimate.eta == .seconds(60))
        // Never less than a minute: one early chunk does not promise a pace.
        #expect(BacklogEstimate(remainingAudioSeconds: 600, audioSecondsDone: 30, workingFor: 2).windowSeconds == 60)
    }

    @Test("nothing waiting is done; work waiting with no pace is unknown, not infinite")
    func edges() {
        #expect(BacklogEstimate(remainingAudioSeconds: 0, audioSecondsDone: 0, workingFor: nil).eta == .done)
        #expect(BacklogEstimate(remainingAudioSeconds: 10, audioSecondsDone: 0, workingFor: nil).eta == .unknown)
        #expect(BacklogEstimate(remainingAudioSeconds: -5, audioSecondsDone: 100, workingFor: 100).eta == .done)
        let shared = BacklogEstimate(remainingAudioSeconds: 7200, audioSecondsDone: 3600, workingFor: 3600).with(remainingAudioSeconds: 1800)
        #expect(shared.eta == .seconds(1800))
    }
}
