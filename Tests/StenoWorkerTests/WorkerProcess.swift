import Foundation
import StenoTestSupport

/// A `steno-worker` process, as operators run it, with its log in a temporary file.
final class WorkerProcess: Sendable {
    let id: String
    private let process: BackgroundProcess
    let logPath: String

    init(id: String, environment: [String: String]) throws {
        self.id = id
        logPath = FileManager.default.temporaryDirectory.appendingPathComponent("steno-worker-\(id)-\(UUID().uuidString).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        merged["STENO_WORKER_ID"] = id
        if merged["STENO_API_KEY"] == nil { merged["STENO_API_KEY"] = RunningASRBackend.apiKey }
        process = try BackgroundProcess(PackageRoot.product("steno-worker").path, environment: merged, log: logPath)
    }

    var isRunning: Bool { process.isRunning }

    /// The supervisor's process: `steno-worker` as started. Its worker runs in a child.
    var pid: Int32 { process.pid }

    func signal(_ signal: Int32) {
        process.signal(signal)
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
        process.signal(signal)
    }

    /// Waits for the process to exit and returns its status, or nil after `timeout`.
    func waitForExit(timeout: Duration) async throws -> Int32? {
        try await process.waitForExit(timeout: timeout)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit {
        process.signal(SIGKILL)
        TestOutputArchive.keep(fileAt: logPath, named: "worker-\(id)")
        try? FileManager.default.removeItem(atPath: logPath)
    }
}
