import StenoCore
import StenoInfrastructure

/// The loop of `steno wait`: reads the media's progress, shows it, and waits for a notification
/// or the poll interval, until every media is finished or the timeout passes. Its waits run on
/// the clock it is given, so that a test moves time instead of waiting for it.
struct WaitFollower {
    var pollInterval: Duration
    var timeout: Duration?
    /// Busy workers notify many times a second; one refresh per quarter second is plenty.
    var minimumRefresh = Duration.milliseconds(250)
    var clock: any MonotonicClock = .continuous

    struct Outcome: Encodable, Equatable {
        var media: [MediaProgress]
        var deleted: [Int64]
        var timedOut: Bool
    }

    /// `progress` reads the media that still exist; `show` is given them and the ids gone.
    func follow(
        _ ids: [Int64], wakeup: Wakeup, progress: ([Int64]) async throws -> [MediaProgress],
        show: ([MediaProgress], _ deleted: [Int64]) -> Void
    ) async throws -> Outcome {
        let deadline = timeout.map { clock.now + $0 }
        while true {
            let refreshed = clock.now
            let media = try await progress(ids)
            let deleted = ids.filter { id in !media.contains { $0.mediaID == id } }
            show(media, deleted)
            if media.allSatisfy({ $0.state.isFinished }) {
                return Outcome(media: media, deleted: deleted, timedOut: false)
            }
            var wait = pollInterval
            if let deadline {
                guard clock.now < deadline else { return Outcome(media: media, deleted: deleted, timedOut: true) }
                wait = min(wait, deadline - clock.now)
            }
            await wakeup.wait(timeout: wait)
            let elapsed = clock.now - refreshed
            if elapsed < minimumRefresh {
                try? await clock.sleep(for: minimumRefresh - elapsed)
            }
        }
    }
}
