import Synchronization

/// A chunk's encoded audio, as a request uploads it.
///
/// When it can be made again (`remake`, the worker encodes the chunk anew), the bytes are handed
/// to the first transfer and dropped as soon as curl has sent the last of them, so a job waiting
/// seconds for a backend's answer holds no audio; a retry remakes them. Without `remake` the
/// bytes stay for every transfer.
public final class UploadAudio: Sendable {
    /// The encoded size in bytes.
    public let count: Int
    private let held: Mutex<[UInt8]?>
    private let remake: (@Sendable () async throws -> [UInt8])?

    public init(_ bytes: [UInt8], remake: (@Sendable () async throws -> [UInt8])? = nil) {
        count = bytes.count
        held = Mutex(bytes)
        self.remake = remake
    }

    /// Whether a transfer may drop the bytes once sent.
    var releasedAfterSending: Bool { remake != nil }

    /// Takes back bytes a transfer never sent in full (a refused connection, an outage probe),
    /// so that the next request sends them without encoding the chunk again.
    func giveBack(_ bytes: [UInt8]) {
        held.withLock { held in
            if held == nil { held = bytes }
        }
    }

    /// The bytes for one transfer: the held ones (no longer held here when they can be remade),
    /// or made again.
    func bytesForTransfer() async throws -> [UInt8] {
        guard let remake else { return held.withLock { $0 ?? [] } }
        if let bytes = held.withLock({ held -> [UInt8]? in
            defer { held = nil }
            return held
        }) {
            return bytes
        }
        return try await remake()
    }
}
