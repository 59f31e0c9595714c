import CLibPQ
import Foundation
import StenoInfrastructure
import Synchronization

/// Owns one `PGcancel`. libpq documents `PQcancel` as safe to call from any thread while the
/// connection's own thread waits for a statement.
///
/// It also numbers its session's statements and knows which one is in flight, so that a cancel
/// is sent only while the statement it was meant for runs: never to the statement after it.
final class LibPQCancelHandle: Sendable {
    // A `PGcancel` is written once by `PQgetCancel` and only read after, by `PQcancel`.
    private nonisolated(unsafe) let pointer: OpaquePointer
    private let statementsSent = Atomic<UInt64>(0)
    /// The number of the statement in flight; 0 between statements.
    private let inFlight = Atomic<UInt64>(0)
    /// While a cancelled statement still runs, its cancel is sent again this often: the server
    /// drops a request that reaches the backend before the backend has read the statement.
    static let resendInterval = Duration.milliseconds(250)

    init?(connection: OpaquePointer) {
        guard let pointer = PQgetCancel(connection) else { return nil }
        self.pointer = pointer
    }

    deinit {
        PQfreeCancel(pointer)
    }

    /// Marks a new statement as in flight and returns its number.
    func statementSent() -> UInt64 {
        let number = statementsSent.add(1, ordering: .relaxed).newValue
        inFlight.store(number, ordering: .releasing)
        return number
    }

    func statementEnded() {
        inFlight.store(0, ordering: .releasing)
    }

    /// Asks the server to cancel statement `number`, and again every `resendInterval` for as
    /// long as it is in flight. Returns at once: the requests go out from a thread of their own,
    /// as each opens a connection to the server and may block (never from libdispatch's bounded
    /// pool, which the blocked sessions it is meant to free may have filled; see `BlockingThread`).
    func cancel(statement number: UInt64) {
        let thread = Thread { self.send(number) }
        thread.name = "steno.postgres.cancel"
        thread.start()
    }

    private func send(_ number: UInt64) {
        while inFlight.load(ordering: .acquiring) == number {
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(pointer, &buffer, Int32(buffer.count))
            Thread.sleep(forTimeInterval: Self.resendInterval.seconds)
        }
    }
}
