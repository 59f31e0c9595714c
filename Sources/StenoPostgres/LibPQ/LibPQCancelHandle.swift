import CLibPQ

/// Owns one `PGcancel`. libpq documents `PQcancel` as safe to call from any thread
/// while the connection's own thread is blocked in a statement.
final class LibPQCancelHandle: @unchecked Sendable {
    private let pointer: OpaquePointer

    init?(connection: OpaquePointer) {
        guard let pointer = PQgetCancel(connection) else { return nil }
        self.pointer = pointer
    }

    deinit {
        PQfreeCancel(pointer)
    }

    /// Asks the server to cancel the statement in progress; best effort.
    func cancel() {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(pointer, &buffer, Int32(buffer.count))
    }
}
