import Foundation
import Synchronization

/// Backends whose configuration was rejected (a bad key, no quota), and until when chunk jobs
/// are not claimed because of them: one bad key must not fail the whole queue.
final class BackendPause: Sendable {
    private let until = Mutex<[String: Date]>([:])

    func pause(_ backend: String, until date: Date) {
        until.withLock { $0[backend] = max($0[backend] ?? date, date) }
    }

    /// The pauses still running, dropping those that ended.
    func active(now: Date = Date()) -> [String: Date] {
        until.withLock { paused in
            paused = paused.filter { $0.value > now }
            return paused
        }
    }

    var isPaused: Bool { !active().isEmpty }
}
