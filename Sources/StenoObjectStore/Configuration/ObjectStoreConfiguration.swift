public import Foundation
public import StenoCore

/// Where Steno keeps media when machines share no volume: a bucket (and a key prefix) of an
/// S3-compatible store, and how to reach and sign for it.
public struct ObjectStoreConfiguration: Sendable {
    /// How a bucket is named in a request's URL.
    public enum Addressing: String, Sendable, CaseIterable {
        /// `https://endpoint/bucket/key`: SeaweedFS, MinIO, Ceph, most self-hosted stores.
        case path
        /// `https://bucket.endpoint/key`: AWS S3's own form, needed by its newer buckets.
        case virtual
    }

    /// The store's base URL: `https://s3.eu-west-1.amazonaws.com`, `http://seaweedfs:8333`.
    public var endpoint: URLComponents
    public var region: String
    public var bucket: String
    /// Prepended to every key Steno writes (`steno/`); empty for the bucket's root.
    public var prefix: String
    public var addressing: Addressing
    public var credentials: ObjectStoreCredentials
    /// Uploads larger than this go up in parts of this size, or larger where the file needs
    /// more than 10,000 of them (S3 takes 5 MiB to 5 GiB a part, and at most 10,000 parts: 8 MiB
    /// parts carry files up to 78 GiB). The part is what an upload holds in memory: a smaller
    /// one keeps steno-api's memory flatter (`bench/api/store-upload`).
    public var partSize: Int = 8 << 20

    /// The part size for a file of `size` bytes: `partSize`, or the least that keeps it within
    /// 10,000 parts.
    public func partSize(forFileOf size: Int64) -> Int {
        let least = Int((size + 9_999) / 10_000)
        return max(partSize, least)
    }
    /// How long a worker's signed link to a recording lives: the longest a job reads it for.
    public var readLinkLifetime: Duration = .seconds(6 * 3600)
    /// How long a listener's signed link to a recording lives.
    public var playbackLinkLifetime: Duration = .seconds(600)
    /// Unfinished multipart uploads older than this are aborted (the store keeps their parts,
    /// and bills them, until then).
    public var abandonedUploadAge: Duration = .seconds(24 * 3600)
    /// How many times one request is tried while the store is unreachable or slow, and the wait
    /// between tries: 0.2 s doubling up to 10 s (the jobs' own `RetryBackoff`, without jitter).
    public var attempts = 6
    public var backoff = RetryBackoff(base: .milliseconds(200), cap: .seconds(10), jitter: 0)

    public init(
        endpoint: URLComponents, region: String, bucket: String, prefix: String = "", addressing: Addressing = .path,
        credentials: ObjectStoreCredentials
    ) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.prefix = prefix
        self.addressing = addressing
        self.credentials = credentials
    }

    /// The URL of `key` in the bucket (or of the bucket itself for an empty key).
    public func url(key: String, query: [URLQueryItem] = []) -> URLComponents {
        var components = endpoint
        let base = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let encodedKey = key.split(separator: "/", omittingEmptySubsequences: false).map { SigV4Signer.uriEncode(String($0)) }.joined(separator: "/")
        switch addressing {
        case .path:
            components.percentEncodedPath = base + "/" + SigV4Signer.uriEncode(bucket) + (key.isEmpty ? "" : "/" + encodedKey)
        case .virtual:
            components.host = bucket + "." + (endpoint.host ?? "")
            components.percentEncodedPath = base + "/" + encodedKey
        }
        components.percentEncodedQuery = query.isEmpty ? nil : SigV4Signer.canonicalQuery(query)
        return components
    }
}
