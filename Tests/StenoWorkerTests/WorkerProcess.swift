import Foundation
import StenoTestSupport

/// A `steno-worker` process, as operators run it, with its log in a temporary file.
final class WorkerProcess: @unchecked Sendable {
    // @unchecked: `process` is only started, signalled and polled, which Foundation allows from any thread.
    let id: String
    private let process = Process()
    let logPath: String

    init(id: String, environment: [String: String]) throws {
        self.id = id
        logPath = FileManager.default.temporaryDirectory.appendingPathComponent("steno-worker-\(id)-\(UUID().uuidString).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = PackageRoot.product("steno-worker")
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        merged["STENO_WORKER_ID"] = id
        if merged["STENO_API_KEY"] == nil { merged["STENO_API_KEY"] = RunningASRBackend.apiKey }
        process.environment = merged
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// The supervisor's process: `steno-worker` as started. Its worker runs in a child.
    var pid: Int32 { process.processIdentifier }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Sends `signal` to the supervisor and to the worker process it runs, as `docker pause`
    /// freezes a whole container: the worker is paused, not only its supervisor.
    func signalAll(_ signal: Int32) {
        // Each thread lists the children it started; the supervisor spawns from any of its threads.
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) {
                kill(child, signal)
            }
        }
        kill(pid, signal)
    }

    /// Waits for the process to exit and returns its status, or nil after `timeout`.
    func waitForExit(timeout: Duration) async throws -> Int32? {
        try await polled(within: timeout) { process.isRunning ? nil : process.terminationStatus }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        TestOutputArchive.keep(fileAt: logPath, named: "worker-\(id)")
        try? FileManager.default.removeItem(atPath: logPath)
    }
}
