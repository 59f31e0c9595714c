import Foundation
public import Logging
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

    /// What a failed read of the store means: a link the store refused (403, 404 on the bucket)
    /// is checked against the bucket itself, and when the credentials or the bucket are at fault
    /// that configuration error is the job's, naming the setting, so that the fleet waits for an
    /// operator instead of failing media one by one. Anything else is returned as it was.
    public func explained(_ error: any Error) async -> any Error {
        guard let store, let media = error as? MediaError, media.code == .sourceRejected,
            let source = media.source, let bucketURL = store.configuration.url(key: "").string, source.hasPrefix(bucketURL + "/")
        else { return error }
        do {
            try await store.checkAccess()
        } catch where error.isConfiguration {
            return error
        } catch {}
        return error
    }

    /// The recording `source` names, opened for probing and decoding. A source this process
    /// cannot read at all fails as media does: `unsupportedSource` when it names an object and no
    /// store is configured, `sourceRejected` for an object outside the configured bucket.
    public func open(_ source: String, sourceTimeout: Duration = MediaFile.defaultSourceTimeout, logger: Logger) throws(MediaError) -> MediaFile {
        do {
            return MediaFile(try location(of: source), sourceTimeout: sourceTimeout, logger: logger)
        } catch {
            throw MediaError(error.code == .configuration ? .unsupportedSource : .sourceRejected, error.message)
        }
    }
}
