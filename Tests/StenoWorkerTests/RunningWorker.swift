import Foundation
import Logging
import ServiceLifecycle
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoSpeech
import StenoTestSupport
import StenoTranscription
import StenoVoice
import StenoWorker

/// A worker runtime in-process against a test database and a backend, shut down gracefully
/// after the body.
struct RunningWorker {
    let runtime: WorkerRuntime
    /// The port of `/healthz`, `/readyz` and `/metrics`.
    let httpPort: Int
    let workerID: String

    /// Waits until the worker holds its liveness lock, the last step before it claims: `with`
    /// returns once the HTTP server listens, and on a loaded machine the worker has then not
    /// always read the schema yet.
    func waitUntilPresent(_ client: PostgresClient, within limit: Duration = .seconds(60)) async throws {
        let present = try await polled(within: limit) {
            try await client.query(
                "SELECT 1 AS present FROM workers WHERE id = \(workerID) AND liveness_locked_at IS NOT NULL"
            ).isEmpty ? nil : true
        }
        guard present == true else { throw TestEnvironmentError("worker \(workerID) was not present within \(limit)") }
    }

    static func with<Result>(
        database: TestDatabase, backendURL: String, configure: (inout WorkerConfiguration) -> Void = { _ in },
        configureBackend: (inout TranscriptionBackendConfiguration) -> Void = { _ in },
        clock: any MonotonicClock = .continuous, aligner: TextAligner? = nil,
        _ body: (RunningWorker) async throws -> Result
    ) async throws -> Result {
        var settings = WorkerConfiguration(
            workerID: "test-worker-\(UInt32.random(in: 0...UInt32.max))", concurrency: 4, extractionSlots: 2,
            lease: .seconds(10), gracePeriod: .seconds(2),
            retryBackoff: RetryBackoff(base: .milliseconds(200), cap: .seconds(1), jitter: 0))
        settings.planner.targetDuration = MediaTime(seconds: 4)
        settings.planner.searchWindow = MediaTime(seconds: 1)
        configure(&settings)
        var backend = TranscriptionBackendConfiguration(name: "test-backend", baseURL: backendURL)
        backend.apiKey = APIKey(RunningASRBackend.apiKey, source: "test")
        backend.timestampGranularities = [.segment, .word]
        configureBackend(&backend)
        var logger = Logger(label: "steno.worker.test")
        logger.logLevel = ProcessInfo.processInfo.environment["STENO_TEST_WORKER_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let client = database.client(maxConnections: 8)
        // Built as steno-worker builds it, the fleet's rate limit gate included.
        let metrics = WorkerMetrics()
        let gate = FleetRateGate(client: client, metrics: metrics, clock: clock, logger: logger)
        let transcription = FallbackTranscriptionClient(
            primary: TranscriptionClient(configuration: backend, gate: gate, clock: clock, logger: logger), fallback: nil)
        let runtime = try WorkerRuntime(
            configuration: settings, database: database.configuration, client: client, transcription: transcription,
            voice: try SileroModel(contentsOf: VoiceModelFile.path),
            speakers: settings.speakerDetection ? try SpeakerModelFile.pass() : nil, aligner: aligner, metrics: metrics,
            clock: clock, logger: logger)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let http = runtime.makeHTTPApplication(host: "127.0.0.1", port: 0) { portContinuation.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [runtime, http], gracefulShutdownSignals: [], logger: logger))
        let running = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            throw TestEnvironmentError("the worker's HTTP server did not start: \(await running.result)")
        }
        let result: Result
        do {
            result = try await body(RunningWorker(runtime: runtime, httpPort: port, workerID: settings.workerID))
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            await client.shutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
        await client.shutdown()
        return result
    }
}
