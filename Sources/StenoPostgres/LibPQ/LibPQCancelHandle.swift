import CLibPQ
import Synchronization

/// Owns one `PGcancel`. libpq documents `PQcancel` as safe to call from any thread while the
/// connection's own thread waits for a statement.
///
/// It also knows which statement of its session is in flight, so that a cancel sent late (from
/// another thread) is dropped rather than reaching the statement after the one it was meant for.
final class LibPQCancelHandle: Sendable {
    // A `PGcancel` is written once by `PQgetCancel` and only read after, by `PQcancel`.
    private nonisolated(unsafe) let pointer: OpaquePointer
    /// The number of the statement in flight; 0 between statements.
    private let inFlight = Atomic<UInt64>(0)

    init?(connection: OpaquePointer) {
        guard let pointer = PQgetCancel(connection) else { return nil }
        self.pointer = pointer
    }

    deinit {
        PQfreeCancel(pointer)
    }

    func statementSent(_ number: UInt64) {
        inFlight.store(number, ordering: .releasing)
    }

    func statementEnded() {
        inFlight.store(0, ordering: .releasing)
    }

    /// Asks the server to cancel statement `number` if it is still the one in flight; best
    /// effort, and blocking while the request is sent.
    func cancel(statement number: UInt64) {
        guard inFlight.load(ordering: .acquiring) == number else { return }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(pointer, &buffer, Int32(buffer.count))
    }
}
