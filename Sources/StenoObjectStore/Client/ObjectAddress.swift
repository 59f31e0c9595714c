/// An object named as `s3://bucket/key`: how a media's source names a recording in the store.
public struct ObjectAddress: Sendable, Hashable, CustomStringConvertible {
    public var bucket: String
    public var key: String

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Reads `s3://bucket/key`; nil for anything else, or without a bucket or a key.
    public init?(_ source: String) {
        guard source.lowercased().hasPrefix("s3://") else { return nil }
        let rest = source.dropFirst(5)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let bucket = String(rest[..<slash])
        let key = String(rest[rest.index(after: slash)...])
        guard !bucket.isEmpty, !key.isEmpty else { return nil }
        self.init(bucket: bucket, key: key)
    }

    public var description: String { "s3://\(bucket)/\(key)" }
}
