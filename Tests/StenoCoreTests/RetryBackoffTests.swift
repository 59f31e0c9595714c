import FoundationEssentials
import StenoCore
import StenoInfrastructure
import Testing

@Suite("RetryBackoff")
struct RetryBackoffTests {
    @Test("doubles per attempt up to the cap, without jitter")
    func exponential() {
        let backoff = RetryBackoff(base: .seconds(10), cap: .seconds(60), jitter: 0)
        #expect((1...5).map { backoff.delay(afterAttempt: $0) } == [.seconds(10), .seconds(20), .seconds(40), .seconds(60), .seconds(60)])
    }

    @Test("jitter stays within its fraction")
    func jitterBounds() {
        let backoff = RetryBackoff(base: .seconds(100), cap: .seconds(1000), jitter: 0.1)
        for _ in 0..<200 {
            let delay = backoff.delay(afterAttempt: 1)
            #expect(delay >= .seconds(90) && delay <= .seconds(110))
            #expect(backoff.range(afterAttempt: 1).contains(delay))
        }
    }

    @Test("the range of a delay is the nominal delay give or take the jitter, capped")
    func ranges() {
        let backoff = RetryBackoff(base: .milliseconds(40), cap: .milliseconds(160), jitter: 0.2)
        #expect(backoff.range(afterAttempt: 1) == Duration.milliseconds(32)...Duration.milliseconds(48))
        #expect(backoff.range(afterAttempt: 2) == Duration.milliseconds(64)...Duration.milliseconds(96))
        #expect(backoff.range(afterAttempt: 3) == Duration.milliseconds(128)...Duration.milliseconds(192))
        #expect(backoff.range(afterAttempt: 4) == Duration.milliseconds(128)...Duration.milliseconds(192))
    }
}

@Suite("Job vocabulary")
struct JobVocabularyTests {
    @Test("priority names parse and order")
    func priorities() {
        #expect(JobPriority(name: "HIGH") == .high)
        #expect(JobPriority(name: "next") == .medium)
        #expect(JobPriority(name: "urgent") == nil)
        #expect(JobPriority.low < .medium && JobPriority.medium < .high)
    }

    @Test("only failures that may heal are retryable")
    func retryable() {
        #expect(FailureClass.transient.isRetryable)
        #expect(!FailureClass.permanent.isRetryable)
        #expect(!FailureClass.configuration.isRetryable)
        #expect(!FailureClass.tooLarge.isRetryable)
    }

    @Test("a lease exists only for a running job with an owner")
    func lease() {
        let job = Job(
            id: 7, kind: .chunk, state: .running, priority: .low, runAt: .now, attempt: 2, maxAttempts: 5,
            mediaID: nil, chapterID: nil, chunkID: nil, leaseOwner: "w", leaseExpiresAt: .now,
            cancelRequested: false, errorClass: nil, errorMessage: nil, createdAt: .now)
        #expect(job.lease == JobLease(jobID: 7, owner: "w", attempt: 2))
        var queued = job
        queued.state = .queued
        #expect(queued.lease == nil)
    }
}

@Suite("AnswerDisposal")
struct AnswerDisposalTests {
    @Test("an answer is written while its chunk is unfinished, and otherwise discarded with the reason", arguments: [
        (.queued, nil), (.running, nil), (.succeeded, AnswerDisposal.DiscardReason.alreadyAnswered),
        (.cancelled, .chunkEnded), (.split, .chunkEnded), (.failed, .chunkEnded), (nil, .chunkEnded),
    ] as [(ChunkState?, AnswerDisposal.DiscardReason?)])
    func discardReason(state: ChunkState?, expected: AnswerDisposal.DiscardReason?) {
        #expect(AnswerDisposal.discardReason(forChunkState: state) == expected)
    }
}

@Suite("OutageProbe")
struct OutageProbeTests {
    @Test("a new outage waits the initial time; each failed probe doubles the wait up to the cap")
    func probeWaitsDouble() {
        let probe = OutageProbe(initial: .seconds(5), cap: .seconds(300))
        var wait = probe.next(after: nil)
        var waits = [wait]
        for _ in 0..<8 {
            wait = probe.next(after: wait)
            waits.append(wait)
        }
        #expect(waits == [5, 10, 20, 40, 80, 160, 300, 300, 300].map { Duration.seconds($0) })
        #expect(OutageProbe(initial: .seconds(10), cap: .seconds(1)).cap == .seconds(10), "a cap below the first wait is raised to it")
    }
}
