import Foundation
import StenoInfrastructure
import Synchronization

/// A program a test starts and leaves running: a server, a worker, a follower of a stream.
///
/// A thread of its own waits for it (`waitpid` on its pid), so its end is seen the moment it
/// comes. Foundation's `Process` learns of a child's end from SIGCHLD, which the test runner's
/// threads block: a worker that had logged its error and exited at once was still "running" to
/// it 60 s later, in a loaded worker phase (2026-11-28). The child also starts with every
/// signal at its default action (`SpawnedProcess`), so SIGTERM reaches it as an operator's would.
public final class BackgroundProcess: Sendable {
    private let spawned: SpawnedProcess
    private let ending: Ending

    /// The `waitpid` status word once the child has ended; a class, so that the thread that waits
    /// holds it and not the `BackgroundProcess`, whose `deinit` may kill a child still running.
    private final class Ending: Sendable {
        let status = Mutex<Int32?>(nil)
    }

    /// Starts `executable` with `arguments` and `environment` (the whole of it), its standard
    /// output and error in `log` when given (both in the one file), else nowhere.
    /// Every program starts under util-linux's `setpriv --pdeathsig KILL`, so that it ends with
    /// the test process however that ends (a crash, `timeout`'s SIGKILL), as its `deinit` would
    /// end it: a worker a test started was found running 28 minutes after the suite, orphaned.
    static let endsWithTheTests = "/usr/bin/setpriv"

    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String], log: String? = nil) throws {
        let wrapped = FileManager.default.isExecutableFile(atPath: Self.endsWithTheTests)
        do {
            spawned = try SpawnedProcess(
                executable: wrapped ? Self.endsWithTheTests : executable, name: executable,
                arguments: wrapped ? ["--pdeathsig", "KILL", "--", executable] + arguments : arguments, environment: environment,
                files: .init(input: "/dev/null", output: log ?? "/dev/null", error: log ?? "/dev/null"))
        } catch {
            throw TestEnvironmentError("\(error)")
        }
        let ending = Ending()
        self.ending = ending
        Task { [spawned] in
            let status = await spawned.exit()
            ending.status.withLock { $0 = status }
        }
    }

    public var pid: Int32 { spawned.pid }

    public var isRunning: Bool { ending.status.withLock { $0 } == nil }

    /// The exit status, or 128 plus the signal that ended it, as a shell gives it; nil while it runs.
    public var exitStatus: Int32? {
        ending.status.withLock { $0 }.map(ChildProcess.shellStatus)
    }

    /// Sends `signal`; nothing once the child is seen to have ended, when its pid may be another's.
    public func signal(_ signal: Int32) {
        ending.status.withLock { status in
            if status == nil { kill(spawned.pid, signal) }
        }
    }

    /// Waits for the child to end and returns `exitStatus`, or nil after `timeout`, which bounds
    /// a hang: it times nothing.
    public func waitForExit(timeout: Duration) async throws -> Int32? {
        try await polled(within: timeout) { exitStatus }
    }
}
