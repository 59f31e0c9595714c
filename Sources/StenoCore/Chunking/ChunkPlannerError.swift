/// A chunk planning configuration that cannot produce chunks within the backend's limits.
public struct ChunkPlannerError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "chunk plan: \(reason)" }
}
