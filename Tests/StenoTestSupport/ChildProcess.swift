import Foundation
import StenoInfrastructure

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion and captures its output, with `posix_spawn` and `waitpid`.
///
/// Foundation's `Process` on Linux left finished children unreaped under the test runner, so
/// `waitUntilExit` never returned; this does the two system calls itself, on a thread of its own
/// so that the cooperative pool is never blocked.
public struct ChildProcess: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
    /// The child outlived its time limit and was killed (`status` is then 137).
    public var timedOut = false

    /// A child that outlives `timeLimit` is killed with SIGKILL, with every process it started
    /// (its process group), so that a hang fails its test
    /// with `timedOut` instead of holding the whole run.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeLimit: Duration = .seconds(300)
    ) async throws -> ChildProcess {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try runBlocking(executable, arguments, environment: environment, timeLimit: timeLimit) })
            }
            thread.start()
        }
    }

    /// A `waitpid` status word as a shell gives it: the exit status, or 128 plus the signal that
    /// ended the process (WIFEXITED / WEXITSTATUS, which Swift does not import).
    public static func shellStatus(_ waitStatus: Int32) -> Int32 {
        (waitStatus & 0x7f) == 0 ? (waitStatus >> 8) & 0xff : 128 + (waitStatus & 0x7f)
    }

    public static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeLimit: Duration = .seconds(300)
    ) throws -> ChildProcess {
        let directory = FileManager.default.temporaryDirectory
        let outputPath = directory.appendingPathComponent("steno-child-\(UUID().uuidString).out").path
        let errorPath = directory.appendingPathComponent("steno-child-\(UUID().uuidString).err").path
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }

        let pid: Int32
        do {
            // A process group of its own, so that a time limit kills what the child started too.
            pid = try SpawnedProcess(
                executable: executable, name: executable, arguments: arguments,
                environment: environment ?? ProcessInfo.processInfo.environment,
                files: .init(input: "/dev/null", output: outputPath, error: errorPath), newProcessGroup: true
            ).pid
        } catch {
            throw TestEnvironmentError("\(error)")
        }
        var waitStatus: Int32 = 0
        var timedOut = false
        let deadline = ContinuousClock.now + timeLimit
        while true {
            let reaped = waitpid(pid, &waitStatus, WNOHANG)
            if reaped == pid { break }
            guard reaped == 0 || errno == EINTR else { throw TestEnvironmentError("waitpid failed for \(executable): errno \(errno)") }
            if !timedOut, ContinuousClock.now >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
            }
            usleep(5_000)
        }
        let exitStatus = shellStatus(waitStatus)
        let output = FileManager.default.contents(atPath: outputPath) ?? Data()
        let errors = FileManager.default.contents(atPath: errorPath) ?? Data()
        TestOutputArchive.keep(
            // The arguments are the test's own input (a test may pass a secret there on purpose);
            // what is scanned is what the program printed.
            "$ \(executable)\n--- stdout\n\(String(decoding: output, as: UTF8.self))\n--- stderr\n\(String(decoding: errors, as: UTF8.self))",
            named: "child")
        return ChildProcess(
            status: exitStatus,
            standardOutput: String(decoding: output, as: UTF8.self),
            standardError: String(decoding: errors, as: UTF8.self),
            timedOut: timedOut)
    }
}
