import Foundation
import Logging
import ServiceLifecycle
import StenoASR
import StenoTestSupport
import Testing

/// A steno-asr server on a free port of 127.0.0.1, for the duration of a test.
struct RunningASRServer {
    let server: ASRServer
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server; with `loadModel` false it stays in the loading state.
    static func with<Result>(
        _ configure: (inout ASRConfiguration) -> Void = { _ in },
        loadModel: Bool = true,
        _ body: (RunningASRServer) async throws -> Result
    ) async throws -> Result {
        var configuration = ASRConfiguration(host: "127.0.0.1", port: 0, recognizers: 2)
        configure(&configuration)
        let server = try ASRServer(configuration: configuration, logger: Logger(label: "steno.asr.test"))
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        var services: [any Service] = [server.makeApplication { port in portContinuation.yield(port) }]
        if loadModel { services.append(server.modelLoader) }
        let group = ServiceGroup(configuration: .init(services: services, logger: Logger(label: "steno.asr.test")))
        let running = Task {
            // Ends the port stream too, so a server that fails to start fails the test instead of hanging it.
            defer { portContinuation.finish() }
            try await group.run()
        }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            let outcome = await running.result
            throw TestEnvironmentError("steno-asr did not start listening: \(outcome)")
        }
        let instance = RunningASRServer(server: server, port: port)
        if loadModel { try await instance.waitUntilReady() }
        let result = try await body(instance)
        await group.triggerGracefulShutdown()
        _ = await running.result
        return result
    }

    func waitUntilReady() async throws {
        try await poll(until: { try await curl(["\(baseURL)/healthz"]).status == 200 }, "steno-asr's model loaded")
    }

    /// An HTTP exchange through the `curl` command: status, headers and body.
    struct Exchange {
        var status: Int
        var headers: String
        var body: String
    }

    func curl(_ arguments: [String]) async throws -> Exchange {
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("steno-asr-headers-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headerFile) }
        let result = try await ChildProcess.run(
            "/usr/bin/curl", ["-sS", "--max-time", "60", "-D", headerFile, "-w", "\n%{http_code}"] + arguments)
        guard result.status == 0 else { throw TestEnvironmentError("curl failed: \(result.standardError)") }
        var lines = result.standardOutput.components(separatedBy: "\n")
        let status = Int(lines.removeLast()) ?? 0
        let headers = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        return Exchange(status: status, headers: headers, body: lines.joined(separator: "\n"))
    }

    /// `POST /v1/audio/transcriptions` with `file=@path` and the given extra form fields.
    func transcribe(file: String, fields: [String: String] = ["model": "whisper-1"], headers: [String] = []) async throws -> Exchange {
        var arguments = ["-F", "file=@\(file)"]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            arguments += ["-F", "\(name)=\(value)"]
        }
        for header in headers {
            arguments += ["-H", header]
        }
        return try await curl(arguments + ["\(baseURL)/v1/audio/transcriptions"])
    }
}
