import Foundation
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoPostgres
import StenoTestSupport
import StenoTranscription
import StenoWorker
import Testing

/// The configuration tables of `docs/configuration.md` state defaults (the `steno-worker` table,
/// the transcription backend table, and the sentence on how long `steno` waits for its database);
/// these are checked against the values the code really uses, so that a changed default cannot
/// leave the documentation behind. (The type keeps its name from when the tables were in the README.)
@Suite("documented defaults (docs/configuration.md)")
struct ReadmeDefaultsTests {
    /// Where the tables live.
    static let page = "docs/configuration.md"
    static let text = (try? String(contentsOf: PackageRoot.url.appendingPathComponent(page), encoding: .utf8)) ?? ""

    /// The cells of the first table row of the page that names `variable` in backticks.
    static func row(_ variable: String) -> [String] {
        let line = text.split(separator: "\n").first { $0.hasPrefix("|") && $0.contains("`\(variable)`") }
        return line.map { $0.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value.rounded() == value ? String(Int(value)) : String(value)
    }

    @Test("steno-worker's flags table: every default is the code's")
    func workerTable() {
        let worker = WorkerConfiguration()
        // | flag | variable | default | meaning |: the default is the fourth cell (the first is empty).
        let expected: [(String, String)] = [
            ("STENO_WORKER_CONCURRENCY", "\(worker.concurrency)"),
            ("STENO_WORKER_EXTRACTION_SLOTS", "cores"),
            ("STENO_WORKER_DATABASE_CONNECTIONS", "\(worker.databaseConnections)"),
            ("STENO_WORKER_LEASE_SECONDS", Self.seconds(worker.lease)),
            ("STENO_CHUNK_SECONDS", "\(Int(worker.planner.targetDuration.seconds))"),
            ("STENO_WORKER_GRACE_SECONDS", Self.seconds(worker.gracePeriod)),
            ("STENO_WORKER_QUARANTINE_MAX_SECONDS", Self.seconds(worker.longestQuarantineWait)),
            ("STENO_WORKER_RETRY_DELAY_SECONDS", Self.seconds(worker.retryBackoff.base)),
            ("STENO_WORKER_RETRY_DELAY_MAX_SECONDS", Self.seconds(worker.retryBackoff.cap)),
            ("STENO_WORKER_OUTAGE_PROBE_SECONDS", Self.seconds(worker.outageProbe.initial)),
            ("STENO_WORKER_OUTAGE_PROBE_MAX_SECONDS", Self.seconds(worker.outageProbe.cap)),
            ("STENO_SOURCE_TIMEOUT_SECONDS", Self.seconds(MediaFile.defaultSourceTimeout)),
            ("STENO_WORKER_HTTP_PORT", "\(WorkerConfiguration.defaultHTTPPort)"),
            ("STENO_WORKER_HTTP_HOST", WorkerConfiguration.defaultHTTPHost),
        ]
        for (variable, value) in expected {
            let cells = Self.row(variable)
            #expect(cells.count > 3 && cells[3] == value, "\(Self.page)'s \(variable) default: \(cells), the code's: \(value)")
        }
        #expect(worker.extractionSlots == max(1, ProcessInfo.processInfo.activeProcessorCount))
        #expect(Self.seconds(worker.heartbeatInterval * 4) == Self.seconds(worker.lease), "\(Self.page) says a heartbeat every quarter of the lease")
    }

    @Test("the backend table: every default is the code's")
    func backendTable() {
        let backend = TranscriptionBackendConfiguration(name: "primary", baseURL: "http://backend")
        let limits = backend.limits
        let retry = backend.retry
        // | variable | meaning | default |: the default is the fourth cell.
        let expected: [(String, String)] = [
            ("STENO_BACKEND_PATH", "`\(backend.path)`"),
            ("STENO_MODEL", "`\(backend.model)`"),
            ("STENO_RESPONSE_FORMAT", "`\(backend.responseFormat.rawValue)`"),
            ("STENO_TIMESTAMP_GRANULARITIES", "`\(backend.timestampGranularities.map(\.rawValue).joined(separator: ","))`"),
            ("STENO_CONNECT_TIMEOUT", [limits.connect, limits.request, limits.attempt, limits.stall].map(Self.seconds).joined(separator: ", ")),
            ("STENO_MAX_RETRIES", "\(retry.maximumRetries), \(Self.seconds(retry.backoff.base)), \(Self.seconds(retry.backoff.cap))"),
            ("STENO_FALLBACK_AFTER", "none, \(FallbackTranscriptionClient.defaultFallbackAfter)"),
        ]
        for (variable, value) in expected {
            let cells = Self.row(variable)
            #expect(cells.count > 3 && cells[3] == value, "\(Self.page)'s \(variable) default: \(cells), the code's: \(value)")
        }
    }

    @Test("the database wait: 60 s for the worker, 10 s for the CLI, as docs/configuration.md says")
    func databaseWait() {
        let cells = Self.row("STENO_DATABASE_WAIT_SECONDS")
        #expect(cells.count > 3 && cells[3] == Self.seconds(PostgresConfiguration.workerWait), "\(cells)")
        #expect(Self.text.contains("`steno` waits \(Self.seconds(PostgresConfiguration.cliWait)) s by default"))
    }
    /// Every long flag of every command, read from each executable's own description of itself
    /// (`--experimental-dump-help`, argument-parser's JSON), so that a new flag cannot go
    /// undocumented.
    @Test("every flag of steno, steno-worker, steno-asr and steno-api is in the page", arguments: ["steno", "steno-worker", "steno-asr", "steno-api"])
    func everyFlagIsDocumented(_ product: String) async throws {
        let result = try await ChildProcess.run(PackageRoot.product(product).path, ["--experimental-dump-help"], timeLimit: .seconds(30))
        try #require(result.status == 0, "\(product) --experimental-dump-help: \(result.standardError)")
        let dump = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        var flags: [(command: String, flag: String)] = []
        func walk(_ command: [String: Any], _ path: String) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool ?? true {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    if let flag = name["name"] as? String, flag != "help", flag != "version" { flags.append((path, flag)) }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + " " + (sub["commandName"] as? String ?? "?"))
            }
        }
        walk(try #require(dump["command"] as? [String: Any]), product)
        #expect(flags.count >= 5, "\(product): only \(flags.count) flags read")
        for (command, flag) in flags {
            let documented = Self.text.contains("`--\(flag)")
            #expect(documented, "\(command) --\(flag) is not in \(Self.page)")
        }
    }
}
