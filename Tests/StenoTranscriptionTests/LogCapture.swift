import Logging
import Synchronization

/// Collects every log line with its metadata, to check what a client logs.
final class LogCapture: LogHandler, @unchecked Sendable {
    // @unchecked: `lines` is behind its mutex; metadata and level are set once before use.
    private let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.withLock { $0.append("\(event.level) \(event.message) \(rendered)") }
    }

    var all: [String] { lines.withLock { $0 } }
}
