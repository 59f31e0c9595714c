import Foundation
import Logging
import ServiceLifecycle
import StenoASR
import StenoTestSupport
import Testing

/// A steno-asr server on a free port of 127.0.0.1, in-process, for the duration of a test.
struct RunningASRBackend {
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The key steno-asr requires; the worker tests send it, so a whole run shows whether it leaks.
    static let apiKey = TestSecret.make("sk-asr")

    static func with<Result>(_ body: (RunningASRBackend) async throws -> Result) async throws -> Result {
        let configuration = ASRConfiguration(host: "127.0.0.1", port: 0, recognizers: 1, apiKey: apiKey)
        let server = try ASRServer(configuration: configuration, logger: Logger(label: "steno.asr.test"))
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let services: [any Service] = [server.makeApplication { port in portContinuation.yield(port) }, server.modelLoader]
        let group = ServiceGroup(configuration: .init(services: services, logger: Logger(label: "steno.asr.test")))
        let running = Task {
            // Ends the port stream too, so a server that fails to start fails the test instead of hanging it.
            defer { portContinuation.finish() }
            try await group.run()
        }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            throw TestEnvironmentError("steno-asr did not start listening: \(await running.result)")
        }
        let backend = RunningASRBackend(port: port)
        try await backend.waitUntilReady()
        let result = try await body(backend)
        await group.triggerGracefulShutdown()
        _ = await running.result
        return result
    }

    private func waitUntilReady() async throws {
        try await poll(until: {
            try await ChildProcess.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(baseURL)/healthz"]).standardOutput == "200"
        }, "steno-asr's model loaded")
    }
}
