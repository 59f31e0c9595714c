import StenoCore
import StenoInfrastructure
import StenoTranscription

/// Keeps a chunk job from starting an upload on a lease it may have lost.
///
/// A worker whose heartbeats stopped reaching the database (a network split, a database that
/// is away, a heartbeat stuck behind a loaded database) cannot know whether its leases still
/// hold: once one expires, another worker takes the job and uploads the same audio. So before
/// each request to the backend, retries included, the job checks when its lease was last
/// renewed: a lease renewed within half its length goes ahead; an older one waits for the next
/// heartbeat that renews it. It does not give the job up on its own: only a heartbeat that
/// finds the lease taken stops the job (or a cancel, or shutdown), since a heartbeat that is
/// merely slow has still renewed the lease in the database. An answer already received is
/// still stored (`AnswerHold`): this only withholds new spending.
struct LeaseWatch: Sendable {
    /// What to do about an upload, given how long ago the lease was last renewed.
    enum Verdict: Equatable {
        case upload
        case waitForHeartbeat
    }

    /// The pure rule: renewed within half the lease (two heartbeats), upload; else wait.
    static func verdict(sinceRenewal age: Duration, lease: Duration) -> Verdict {
        age < lease / 2 ? .upload : .waitForHeartbeat
    }

    let lease: Duration
    /// How long ago the lease was last renewed (at the claim, then by each heartbeat that held it).
    let sinceRenewal: @Sendable () -> Duration
    /// How often a waiting upload looks again.
    var recheck: Duration = .milliseconds(100)
    /// The clock the rechecks wait on.
    var clock: any MonotonicClock = .continuous

    /// Returns when an upload may start; throws a `cancelled` error when the job is stopped
    /// first (its lease found taken, a cancel, shutdown).
    func admitUpload(cancellation: CancellationSignal) async throws(TranscriptionError) {
        while Self.verdict(sinceRenewal: sinceRenewal(), lease: lease) == .waitForHeartbeat {
            if await !cancellation.sleep(for: recheck, clock: clock) {
                throw TranscriptionError(.cancelled, .cancelled, "no upload started: the job was stopped while its lease was unsure")
            }
        }
        if cancellation.isCancelled {
            throw TranscriptionError(.cancelled, .cancelled, "no upload started: the job was stopped")
        }
    }
}
