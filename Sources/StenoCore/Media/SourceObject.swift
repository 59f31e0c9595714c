import Foundation

/// A recording in the object store as Steno took it: its size, the store's entity tag for those
/// bytes, and, for a recording Steno uploaded itself, the SHA-256 it computed while sending
/// them. `media` keeps them (migration 0027), and every read of the recording checks the object
/// against the size and tag first (`MediaSources.open(_:expecting:)`): a recording replaced or
/// damaged in the store fails its media, saying so, instead of being transcribed as something
/// else. The tag is what the store answers to a HEAD; S3 derives it from the bytes (the MD5 of
/// a single upload, of the parts' MD5s for a multipart one), so a ranged read needs no pass over
/// the whole file to know it reads the same bytes.
public struct SourceObject: Sendable, Equatable {
    public var size: Int64
    /// Without quotes or a weak-validator prefix (`W/`): stores differ in how they quote it.
    public var etag: String?
    /// Lowercase hex; nil for an object Steno did not upload (`steno enqueue s3://...`).
    public var sha256: String?

    public init(size: Int64, etag: String?, sha256: String? = nil) {
        self.size = size
        self.etag = etag.map(Self.normalized)
        self.sha256 = sha256
    }

    /// An entity tag as compared: `W/"abc"` and `"abc"` are `abc`.
    public static func normalized(_ etag: String) -> String {
        var tag = Substring(etag.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        return String(tag)
    }

    /// Why `found` is not this object, in words; nil when it is.
    public func difference(from found: SourceObject) -> String? {
        if found.size != size { return "it is \(found.size) bytes, and \(size) were stored" }
        if let etag, let other = found.etag, etag != other { return "its entity tag is \(other), and it was \(etag) when stored" }
        return nil
    }
}
