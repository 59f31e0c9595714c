import Foundation
import StenoTestSupport

/// A fault-injecting backend in front of steno-asr: some requests get a transient fault (503 or
/// a reset connection), the others are forwarded to steno-asr with `curl` and its answer returned.
enum FlakyProxy {
    /// `faultEvery`: every n-th request (from the first) gets a fault, alternating 503 and reset.
    static func start(forwardingTo asrURL: String, faultEvery: Int) throws -> FaultServer {
        try FaultServer { index, _ in
            if index % faultEvery == 0 {
                return (index / faultEvery) % 2 == 0
                    ? .openAIError(503, message: "the backend is overloaded", type: "server_error")
                    : .reset
            }
            return .echo(status: 200) { request in
                (headers: [("Content-Type", "application/json")], body: forward(request, to: asrURL))
            }
        }
    }

    /// Sends the same multipart form to steno-asr; runs on the fault server's connection thread.
    private static func forward(_ request: RecordedRequest, to asrURL: String) -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("steno-proxy-\(UUID().uuidString).flac")
        defer { try? FileManager.default.removeItem(at: file) }
        var arguments = ["-sS", "--max-time", "60", "-H", "Authorization: Bearer \(RunningASRBackend.apiKey)"]
        for part in request.parts {
            if part.fileName != nil {
                guard FileManager.default.createFile(atPath: file.path, contents: Data(part.body)) else { return "{}" }
                arguments += ["-F", "\(part.name)=@\(file.path)"]
            } else {
                arguments += ["-F", "\(part.name)=\(part.text)"]
            }
        }
        arguments.append("\(asrURL)\(request.head.path)")
        guard let result = try? ChildProcess.runBlocking("/usr/bin/curl", arguments), result.status == 0 else { return "{}" }
        return result.standardOutput
    }
}
