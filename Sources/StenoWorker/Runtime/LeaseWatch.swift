import StenoCore
import StenoTranscription

/// Keeps a chunk job from starting an upload on a lease it may have lost.
///
/// A worker whose heartbeats stopped reaching the database (a network split, a database that
/// is away) cannot know whether its leases still hold: once one expires, another worker takes
/// the job and uploads the same audio. So before each request to the backend, retries
/// included, the job checks when its lease was last renewed: a lease renewed within half its
/// length goes ahead; an older one waits for the next heartbeat; one that went a whole lease
/// without renewal is lost, and the job stops without uploading (the fleet's rescue takes it).
/// An answer already received is still stored (`AnswerHold`): this only withholds new spending.
struct LeaseWatch: Sendable {
    /// What to do about an upload, given how long ago the lease was last renewed.
    enum Verdict: Equatable {
        case upload
        case waitForHeartbeat
        case lost
    }

    /// The pure rule: renewed within half the lease, upload; not renewed for the whole lease,
    /// lost; in between (two heartbeats missed), wait for the next.
    static func verdict(sinceRenewal age: Duration, lease: Duration) -> Verdict {
        if age < lease / 2 { return .upload }
        if age >= lease { return .lost }
        return .waitForHeartbeat
    }

    let lease: Duration
    /// How long ago the lease was last renewed (at the claim, then by each heartbeat that held it).
    let sinceRenewal: @Sendable () -> Duration
    /// Stops the job as having lost its lease.
    let stop: @Sendable () -> Void
    /// How often a waiting upload looks again.
    var recheck: Duration = .milliseconds(100)

    /// Returns when an upload may start; throws a `cancelled` error, after stopping the job,
    /// when the lease is lost or the job was stopped meanwhile.
    func admitUpload(cancellation: CancellationSignal) async throws(TranscriptionError) {
        while true {
            if cancellation.isCancelled { throw Self.withheld("the job was stopped") }
            switch Self.verdict(sinceRenewal: sinceRenewal(), lease: lease) {
            case .upload:
                return
            case .lost:
                stop()
                throw Self.withheld("the job's lease was not renewed for \(lease.seconds) s (the database did not answer its heartbeats)")
            case .waitForHeartbeat:
                _ = await cancellation.sleep(for: recheck)
            }
        }
    }

    private static func withheld(_ why: String) -> TranscriptionError {
        TranscriptionError(.cancelled, .cancelled, "no upload started: \(why)")
    }
}
