import Foundation
import Synchronization

/// Threads of a `PostgresClient` on which a task may wait for the database in place.
///
/// A libpq call blocks its thread until the server answers, so it never runs on Swift's
/// cooperative pool: a call from there hops to the connection's thread and back, two thread
/// wake-ups for every statement. A task that mostly talks to the database (a claim loop, a
/// drain) can instead run on these threads (`PostgresClient.onDatabaseThreads`): its statements
/// then run on the thread it is already on, and a thread blocked in libpq holds up nobody else's
/// Swift code, as there are more threads than connections.
///
/// After `shutdown`, work still addressed to these threads goes to the global executor.
public final class DatabaseThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `started` and `stopped` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var started = false
    private var stopped = false
    private let threads = Mutex<Set<pthread_t>>([])
    private let count: Int
    private let name: String

    /// Up to `count` threads (at least one), started when the first task asks for them.
    public init(count: Int, name: String = "steno.postgres") {
        self.count = max(1, count)
        self.name = name
    }

    /// Whether the calling thread is one of these.
    public var isCurrent: Bool {
        let current = pthread_self()
        return threads.withLock { $0.contains(current) }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if stopped {
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
            return
        }
        jobs.append(job)
        if !started {
            started = true
            startThreads()
        }
        condition.signal()
        condition.unlock()
    }

    /// Called once, under the lock. The threads hold this object until `shutdown`.
    private func startThreads() {
        for index in 0..<count {
            let thread = Thread {
                self.threads.withLock { _ = $0.insert(pthread_self()) }
                self.serve()
            }
            thread.name = "\(name).\(index)"
            thread.start()
        }
    }

    /// Lets the threads finish what they hold and end; later work runs on the global executor.
    public func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                threads.withLock { _ = $0.remove(pthread_self()) }
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
