import Foundation

/// A thread of its own for the blocking calls of one C handle (a libpq session, an FFmpeg
/// demuxer, a pocketsphinx decoder), run in the order they were handed over.
///
/// Blocking calls must not run on Swift's cooperative pool, and not on libdispatch's either: on
/// Linux, libdispatch runs every queue on one process-wide pool of at most 255 threads
/// (`DISPATCH_WORKQ_MAX_PTHREAD_COUNT`). A process with a few hundred sessions that each wait for
/// the server (a test run with hundreds of tests at once, an API with many listeners) fills it,
/// and then work that would release them (the statement that unlocks, the answer they wait for)
/// never gets a thread: everything on it hangs. One thread per handle has no such bound, and a
/// handle costs far more than a thread (a server backend, an open file, a loaded model).
///
/// The thread starts with the first work and ends when this object is gone and its work is done.
public final class BlockingThread: Sendable {
    private let state: State
    private let name: String

    public init(name: String) {
        self.state = State()
        self.name = name
    }

    deinit {
        state.stop()
    }

    /// Runs `work` on the thread, after everything handed over before it.
    public func async(_ work: @escaping @Sendable () -> Void) {
        state.append(work, threadName: name)
    }

    /// Runs `work` on this thread and returns its result to the calling task.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            async { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work` on the calling thread when this thread has nothing running or waiting, with
    /// nothing else running on it meanwhile; nil, without running it, when it is busy. For a
    /// caller that may itself block (a thread of its own), to save two thread hops; never from
    /// the cooperative pool. A busy thread is never waited for in place: its work may block for
    /// long, and a caller waiting in place could not leave.
    public func runInPlaceIfIdle<Result, Failure: Error>(_ work: () throws(Failure) -> Result) throws(Failure) -> Result? {
        guard state.takeTurnIfIdle() else { return nil }
        defer { state.endTurn() }
        return try work()
    }
}

extension BlockingThread {
    /// The queue and the thread's loop. The thread holds this, never the `BlockingThread`, so
    /// that dropping the owner stops it.
    private final class State: @unchecked Sendable {
        // @unchecked: every field is guarded by `condition`.
        private let condition = NSCondition()
        private var entries: [@Sendable () -> Void] = []
        /// The thread or an in-place caller is running work.
        private var busy = false
        private var started = false
        private var stopped = false

        func append(_ work: @escaping @Sendable () -> Void, threadName: String) {
            condition.lock()
            entries.append(work)
            if !started {
                started = true
                let thread = Thread { [self] in serve() }
                thread.name = threadName
                thread.start()
            }
            condition.broadcast()
            condition.unlock()
        }

        func takeTurnIfIdle() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            guard !busy, entries.isEmpty else { return false }
            busy = true
            return true
        }

        func endTurn() {
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }

        private func serve() {
            while true {
                condition.lock()
                while busy || (entries.isEmpty && !stopped) { condition.wait() }
                guard let work = entries.first else {
                    condition.unlock()
                    return
                }
                entries.removeFirst()
                busy = true
                condition.unlock()
                work()
                condition.lock()
                busy = false
                condition.broadcast()
                condition.unlock()
            }
        }
    }
}
