import Foundation
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore

/// `steno-bench queue-drain --batch B`: one process of bench/queue. Claims B jobs and completes
/// them with the statements a worker runs (`JobStore.claim`, then `JobStore.complete`, one
/// statement each), until the queue is empty. Follows bench/queue/compare.py's contract: prints
/// `ready` once connected, waits for a line on stdin, and at the end prints
/// `{"jobs": N, "end": EPOCH}`.
enum QueueDrain {
    static func run(_ arguments: [String]) async throws {
        var batch = 10
        if let flag = arguments.firstIndex(of: "--batch") {
            let text = arguments.indices.contains(flag + 1) ? arguments[flag + 1] : ""
            batch = argument { () throws(SettingProblem) in try SettingValue.integer(text, name: "--batch", in: 1...100_000) }
        }
        let configuration = try PostgresConfiguration.fromEnvironment(applicationName: "steno-bench")
        let client = PostgresClient(configuration: configuration, maxConnections: 1)
        let store = JobStore(client: client)
        let worker = "bench-\(ProcessInfo.processInfo.processIdentifier)"
        try await client.query("SELECT 1", [])
        say("ready")
        _ = readLine()

        // As a worker learns it from its heartbeat: how claims hand jobs out for these tenants.
        let mode = try await store.claimMode()
        let (done, end) = try await client.onDatabaseThreads {
            var done = 0
            var end = Date().timeIntervalSince1970
            while true {
                let claimed = try await store.claim(limit: batch, worker: worker, lease: .seconds(60), mode: mode)
                if claimed.isEmpty { break }
                done += try await store.complete(claimed.compactMap(\.lease)).count
                end = Date().timeIntervalSince1970
            }
            return (done, end)
        }
        await client.shutdown()
        say("{\"jobs\": \(done), \"end\": \(end)}")
    }

    /// One line on standard output, written at once: the orchestrator waits for it.
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
