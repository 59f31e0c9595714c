import CProcessControl
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process this process started and is the one to reap (`posix_spawn`, `waitpid`).
///
/// The child starts with every signal at its default action and none blocked: dispositions set
/// to "ignore" survive `exec`, and the parent's signal handling (swift-service-lifecycle ignores
/// SIGTERM and SIGINT to watch them itself; a test runner blocks signals in its threads) must not
/// reach a child that handles its own. Standard input, output and error are the parent's unless
/// given as files.
public final class SpawnedProcess: Sendable {
    public let pid: Int32
    /// `waitpid` blocks: it runs on a thread of its own, never on the cooperative pool.
    private let waiter = BlockingThread(name: "steno-wait-child")

    /// Where the child's standard streams go instead of the parent's. An `error` path that is the
    /// `output` path shares its file, as `2>&1` does.
    public struct Files: Sendable {
        public var input: String?
        public var output: String?
        public var error: String?

        public init(input: String? = nil, output: String? = nil, error: String? = nil) {
            self.input = input
            self.output = output
            self.error = error
        }
    }

    /// Starts `executable`, called `name` (its `argv[0]`), with `arguments` and only `environment`.
    /// `newProcessGroup` puts it in a process group of its own, so that a signal to the group
    /// (`kill(-pid, …)`) reaches what it starts too.
    ///
    /// The child is started from this object's own thread, which lives until the child is reaped.
    /// Linux sends a parent-death signal (`endWithParent`) when the *thread* that started the
    /// child ends, not the process: started from a pool thread, the child was killed whenever
    /// that thread idled out, and the supervisor took it for a death from outside.
    public init(
        executable: String, name: String, arguments: [String], environment: [String: String], files: Files = Files(),
        newProcessGroup: Bool = false
    ) throws(ProcessError) {
        let started = Mutex<Result<pid_t, ProcessError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        waiter.async {
            let result = Self.spawn(
                executable: executable, name: name, arguments: arguments, environment: environment, files: files,
                newProcessGroup: newProcessGroup)
            started.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        switch started.withLock({ $0 }) {
        case .success(let pid): self.pid = pid
        case .failure(let error): throw error
        case nil: throw ProcessError("cannot start \(executable): its starting thread gave no answer")
        }
    }

    private static func spawn(
        executable: String, name: String, arguments: [String], environment: [String: String], files: Files,
        newProcessGroup: Bool
    ) -> Result<pid_t, ProcessError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input = files.input { posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0) }
        if let output = files.output { posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        if let error = files.error {
            // Opened twice, one file would have two offsets, and each stream would write over the other.
            if error == files.output {
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            } else {
                posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = ([name] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            return .failure(ProcessError("cannot start \(executable): \(String(cString: strerror(spawned)))"))
        }
        return .success(pid)
    }

    /// Sends `signal` to the child (nothing once it has been reaped).
    public func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the child to end and returns its `waitpid` status word (`WorkerExit(waitStatus:)`
    /// reads it). Call once.
    public func exit() async -> Int32 {
        await waiter.run { [pid] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return status
        }
    }

    /// The path of the running executable, to start another copy of it.
    public static let currentExecutable = "/proc/self/exe"

    /// Makes this process end with SIGKILL when `parent` (the process that started it) ends,
    /// however it ends: a supervised child must not outlive its supervisor. If the parent is
    /// already gone, this process ends at once.
    public static func endWithParent(_ parent: Int32) throws(ProcessError) {
        guard steno_set_parent_death_signal(SIGKILL) == 0 else {
            throw ProcessError("cannot ask to end with the parent process: \(String(cString: strerror(errno)))")
        }
        // The parent may have ended before the request above: then this process has a new parent.
        if getppid() != parent { raise(SIGKILL) }
    }
}
