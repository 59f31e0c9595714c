import Foundation
public import Logging
public import StenoCore
public import StenoMedia

/// Where a media's recording is read from: an object in the store through a signed link that
/// FFmpeg reads with ranged GETs (seeking through MP4 sample tables and chapters as on disk),
/// else the path or URL the media names.
public struct MediaSources: Sendable {
    public let store: ObjectStore?

    public init(store: ObjectStore?) {
        self.store = store
    }

    /// The location to open for `source`. An object of another bucket is `refused`, and one
    /// named where no store is configured is a `configuration` error naming the settings.
    public func location(of source: String) throws(ObjectStoreError) -> MediaLocation {
        if let store {
            if let key = try store.key(ofSource: source) {
                return .url(store.readLink(key, lifetime: store.configuration.readLinkLifetime))
            }
        } else if ObjectAddress(source) != nil {
            throw ObjectStoreError(
                .configuration,
                "the recording is in an object store (\(source)) and this process has none configured: set STENO_S3_BUCKET, STENO_S3_ENDPOINT and the credentials")
        }
        return MediaLocation(source)
    }

    /// What a failed read of the store means. A link the store refused (403, 404 on the bucket),
    /// or a read that broke off (FFmpeg sees a cut connection as damaged or truncated data, or as
    /// a network error), is checked against the bucket itself:
    /// - the store does not answer: the store's `unavailable` error is the job's, and the job
    ///   waits for the store with its try given back, instead of failing its media as damaged;
    /// - the credentials or the bucket are at fault: that configuration error is the job's,
    ///   naming the setting, so that the fleet waits for an operator;
    /// - the store answers: the read's own error stands.
    /// Anything else is returned as it was.
    public func explained(_ error: any Error) async -> any Error {
        guard let store, let media = error as? MediaError, Self.checkedCodes.contains(media.code),
            let source = media.source, let bucketURL = store.configuration.url(key: "").string, source.hasPrefix(bucketURL + "/")
        else { return error }
        do {
            try await store.checkAccess()
        } catch where error.isConfiguration || error.isTransient {
            return error
        } catch {}
        return error
    }

    /// The read failures that may be the store's rather than the recording's.
    static let checkedCodes: Set<MediaError.Code> = [.sourceRejected, .network, .corrupt, .truncated]

    /// The recording `source` names, opened for probing and decoding. A source this process
    /// cannot read at all fails as media does: `unsupportedSource` when it names an object and no
    /// store is configured, `sourceRejected` for an object outside the configured bucket.
    ///
    /// An object is first asked for (one HEAD): a missing one fails its media saying so
    /// (`noSuchObject`), and one that is not what was enqueued (`expecting`: another size or
    /// entity tag, replaced or damaged in the store) fails it as `changed`, so that no media is
    /// transcribed from bytes other than its own. A store that does not answer is `unavailable`
    /// (the job runs again later); credentials it refuses are a `configuration` error.
    public func open(
        _ source: String, expecting object: SourceObject? = nil, sourceTimeout: Duration = MediaFile.defaultSourceTimeout, logger: Logger
    ) async throws -> MediaFile {
        let location: MediaLocation
        do {
            location = try self.location(of: source)
        } catch {
            throw MediaError(error.code == .configuration ? .unsupportedSource : .sourceRejected, error.message)
        }
        if let store, let key = try? store.key(ofSource: source) {
            try await Self.check(source, key: key, in: store, expecting: object)
        }
        return MediaFile(location, sourceTimeout: sourceTimeout, logger: logger)
    }

    /// Whether `key` is there and, with `object`, the object that was stored.
    static func check(_ source: String, key: String, in store: ObjectStore, expecting object: SourceObject?) async throws(ObjectStoreError) {
        guard let found = try await store.head(key) else {
            throw ObjectStoreError(.noSuchObject, "the recording \(source) is not in the object store (deleted or never stored); upload it again")
        }
        if let object, let difference = object.difference(from: found) {
            throw ObjectStoreError(
                .changed,
                "the recording \(source) is not the one enqueued: \(difference); it was replaced or damaged in the store. Enqueue it again to transcribe what it holds now")
        }
    }
}
