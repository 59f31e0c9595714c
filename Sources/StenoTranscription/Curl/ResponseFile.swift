#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A file an answer's body is written to as it arrives, on the engine's thread (its own, never
/// the cooperative pool), up to `maximumBytes`. Made new: an existing file is never replaced.
public final class ResponseFile: Sendable {
    public let path: String
    public let maximumBytes: Int64
    private struct State {
        var descriptor: Int32 = -1
        var written: Int64 = 0
        var overflowed = false
        var failure: Int32 = 0
    }
    private let state = Mutex(State())

    public init(path: String, maximumBytes: Int64) {
        self.path = path
        self.maximumBytes = maximumBytes
    }

    public var bytesWritten: Int64 { state.withLock { $0.written } }
    /// Whether the answer was larger than `maximumBytes` (the transfer was stopped there).
    public var overflowed: Bool { state.withLock { $0.overflowed } }
    /// `errno` of a failed open or write, 0 when none failed.
    public var failure: Int32 { state.withLock { $0.failure } }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard state.written + Int64(bytes.count) <= maximumBytes else {
                state.overflowed = true
                return false
            }
            if state.descriptor < 0 {
                state.descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard state.descriptor >= 0 else {
                    state.failure = errno
                    return false
                }
            }
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(state.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    state.failure = errno
                    return false
                }
                offset += count
            }
            state.written += Int64(bytes.count)
            return true
        }
    }

    /// Closes the file; with `keep` false, removes it too (a failed or refused download).
    public func finish(keep: Bool) {
        state.withLock { state in
            if state.descriptor >= 0 {
                close(state.descriptor)
                state.descriptor = -1
            }
        }
        if !keep { unlink(path) }
    }
}
