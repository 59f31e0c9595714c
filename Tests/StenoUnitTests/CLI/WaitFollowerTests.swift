import Foundation
import StenoCore
import StenoInfrastructure
import StenoTestSupport
import Synchronization
import Testing

@testable import StenoCLI

/// `steno wait`'s loop on a manual clock: its polls, its refresh limit and its timeout happen in
/// the clock's time, never the wall's.
@Suite("steno wait: the loop")
struct WaitFollowerTests {
    static func media(_ id: Int64, _ state: MediaState) -> MediaProgress {
        var media = WaitDisplayTests.media(id, title: "m\(id)", stage: .transcribing, percent: 50)
        media.state = state
        return media
    }

    /// Progress that reads `states` in turn, the last one from then on, and counts its reads.
    final class Source: Sendable {
        let reads = Mutex(0)
        let states: [MediaState]
        init(_ states: [MediaState]) { self.states = states }

        func progress(_ ids: [Int64]) -> [MediaProgress] {
            let read = reads.withLock { value in
                value += 1
                return value
            }
            return ids.map { WaitFollowerTests.media($0, states[min(read, states.count) - 1]) }
        }
    }

    @Test("without notifications it reads again every poll interval until the media finish")
    func polls() async throws {
        let clock = ManualClock(advancingOnSleep: true)
        let source = Source([.transcribing, .transcribing, .transcribing, .succeeded])
        let follower = WaitFollower(pollInterval: .seconds(5), timeout: nil, clock: clock)
        let start = clock.now
        let outcome = try await follower.follow([1], wakeup: Wakeup(clock: clock), progress: { source.progress($0) }, show: { _, _ in })
        #expect(outcome.timedOut == false && outcome.media.map(\.state) == [.succeeded])
        #expect(source.reads.withLock { $0 } == 4)
        #expect(clock.now - start == .seconds(15))
    }

    @Test("a timeout ends the wait at its deadline on the clock, with the media as last read")
    func timesOut() async throws {
        let clock = ManualClock(advancingOnSleep: true)
        let source = Source([.transcribing])
        let follower = WaitFollower(pollInterval: .seconds(5), timeout: .seconds(12), clock: clock)
        let start = clock.now
        let outcome = try await follower.follow([1, 2], wakeup: Wakeup(clock: clock), progress: { source.progress($0) }, show: { _, _ in })
        #expect(outcome.timedOut)
        #expect(outcome.media.count == 2)
        // Reads at 0, 5 and 10 s; the last wait is cut to the 2 s left.
        #expect(source.reads.withLock { $0 } == 4)
        #expect(clock.now - start == .seconds(12))
    }

    @Test("notifications in a burst bring one read per quarter second, and a deleted media is named")
    func refreshLimit() async throws {
        let clock = ManualClock(advancingOnSleep: true)
        let wakeup = Wakeup(clock: clock)
        let source = Source([.transcribing, .transcribing, .succeeded])
        var shown: [[Int64]] = []
        let follower = WaitFollower(pollInterval: .seconds(5), timeout: nil, clock: clock)
        // A notification is waiting before each wait: the wait ends at once, and the loop still
        // keeps a quarter second between reads.
        let outcome = try await follower.follow([1, 2], wakeup: wakeup, progress: { ids in
            wakeup.wake()
            return source.progress(ids).filter { $0.mediaID == 1 }
        }, show: { _, deleted in shown.append(deleted) })
        #expect(outcome.deleted == [2] && outcome.timedOut == false)
        #expect(shown == [[2], [2], [2]])
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(250)])
    }
}
