public import Foundation
public import Logging
public import StenoCore
import StenoInfrastructure
import StenoTranscription

/// The S3-compatible store media are kept in: signed requests over the shared curl engine,
/// tried again with backoff while the store is unreachable, answers 5xx or asks to slow down.
///
/// Keys are the configuration's prefix plus what the caller names; sources name objects as
/// `s3://bucket/key` with the whole key.
public struct ObjectStore: Sendable {
    public let configuration: ObjectStoreConfiguration
    let signer: SigV4Signer
    let logger: Logger
    /// Waits between tries.
    let clock: any Clock<Duration>
    /// The time requests are signed at.
    let now: @Sendable () -> Date

    public init(
        _ configuration: ObjectStoreConfiguration, logger: Logger = Logger(label: "steno.store"), clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region)
        self.logger = logger
        self.clock = clock
        self.now = now
    }

    public var bucket: String { configuration.bucket }

    /// The source a media names an object by.
    public func address(of key: String) -> ObjectAddress {
        ObjectAddress(bucket: configuration.bucket, key: key)
    }

    /// The key of a source in this store's bucket; nil for a source that is not an object, and
    /// `refused` for an object in another bucket (a source may name only the configured one).
    public func key(ofSource source: String) throws(ObjectStoreError) -> String? {
        guard let address = ObjectAddress(source) else {
            if source.lowercased().hasPrefix("s3://") {
                throw ObjectStoreError(.refused, "\(source) is not an object address: write it as s3://\(bucket)/KEY")
            }
            return nil
        }
        guard address.bucket == configuration.bucket else {
            throw ObjectStoreError(
                .refused, "\(address) is in bucket \(address.bucket), and this fleet reads only its own bucket, \(bucket) (STENO_S3_BUCKET)")
        }
        return address.key
    }

    // MARK: Objects

    /// What the store holds for `key`: its size and entity tag; nil when there is no such object.
    public func head(_ key: String) async throws(ObjectStoreError) -> SourceObject? {
        let answer = try await send(.head, key: key, accepting: [200, 404])
        guard answer.status == 200 else { return nil }
        return SourceObject(size: Int64(answer.header("content-length") ?? "") ?? 0, etag: answer.header("etag"))
    }

    /// Stores `bytes` as `key` in one request.
    public func put(_ key: String, _ bytes: [UInt8], contentType: String = "application/octet-stream") async throws(ObjectStoreError) {
        _ = try await send(.put, key: key, body: bytes, headers: ["content-type": contentType])
    }

    /// Removes `key`; removing an object that is not there succeeds, as S3 has it.
    public func delete(_ key: String) async throws(ObjectStoreError) {
        _ = try await send(.delete, key: key, accepting: [200, 204, 404])
    }

    /// A link that reads `key` (ranged GETs included) for `lifetime`, for FFmpeg or a browser.
    /// It carries a signature: log it only through `MediaLocation`, which drops the query.
    public func readLink(_ key: String, lifetime: Duration) -> String {
        signer.presigned(method: "GET", url: configuration.url(key: key), expires: lifetime, date: now())?.absoluteString ?? ""
    }

    /// Checks that the credentials and the bucket work: one clear error naming the setting to
    /// fix when they do not.
    public func checkAccess() async throws(ObjectStoreError) {
        _ = try await send(.head, key: "", accepting: [200])
    }

    // MARK: Requests

    /// Sends one signed request, tried again with backoff while the store is unavailable;
    /// a status outside `accepting` (2xx by default) becomes the error it stands for.
    func send(
        _ method: HTTPCall.Method, key: String, query: [URLQueryItem] = [], body: [UInt8]? = nil, headers: [String: String] = [:],
        accepting: Set<Int>? = nil, cancellation: CancellationSignal = CancellationSignal()
    ) async throws(ObjectStoreError) -> HTTPCall.Answer {
        let url = configuration.url(key: key, query: query)
        let payloadHash = body.map(SigV4Signer.payloadHash) ?? SigV4Signer.emptyPayloadHash
        var attempt = 1
        while true {
            let signed = signer.signedHeaders(method: method.rawValue, url: url, headers: headers, payloadHash: payloadHash, date: now())
            let lines = (headers.merging(signed) { $1 }).map { "\($0.key): \($0.value)" }
            let call = HTTPCall(method, url: url.string ?? "", headerLines: lines, body: body, timeout: .seconds(600))
            let failure: ObjectStoreError
            switch await call.send(cancellation: cancellation) {
            case .success(let answer):
                if accepting?.contains(answer.status) ?? (200..<300).contains(answer.status) { return answer }
                failure = Self.error(for: answer, method: method, key: key)
            case .failure(.cancelled):
                throw ObjectStoreError(.cancelled, "cancelled")
            case .failure(let reason):
                failure = ObjectStoreError(.unavailable, "the object store at \(configuration.endpoint.host ?? "?") did not answer: \(reason)")
            }
            guard failure.isTransient, attempt < configuration.attempts else { throw failure }
            let delay = configuration.backoff.delay(afterAttempt: attempt)
            logger.warning("the object store is unavailable; trying again", metadata: [
                "attempt": "\(attempt)", "error": "\(failure)", "delay_ms": "\(Int((delay.seconds * 1000).rounded()))",
            ])
            do { try await clock.sleep(for: delay) } catch { throw ObjectStoreError(.cancelled, "cancelled") }
            attempt += 1
        }
    }

    /// What an error answer means, in words that say what to do.
    static func error(for answer: HTTPCall.Answer, method: HTTPCall.Method, key: String) -> ObjectStoreError {
        let xml = S3XML(answer.body)
        let code = xml?.first("Code")
        let object = key.isEmpty ? "the bucket" : "object \(key)"
        switch (answer.status, code) {
        case (503, _), (500..., _), (429, _):
            return ObjectStoreError(.unavailable, "the object store is unavailable or asked to slow down", storeCode: code, status: answer.status)
        case (_, "NoSuchBucket"):
            return ObjectStoreError(.noSuchBucket, "the bucket does not exist: create it, or fix STENO_S3_BUCKET", storeCode: code, status: answer.status)
        case (404, _) where key.isEmpty:
            return ObjectStoreError(.noSuchBucket, "the bucket does not exist: create it, or fix STENO_S3_BUCKET", storeCode: code, status: answer.status)
        case (404, _):
            return ObjectStoreError(.noSuchObject, "\(object) is not in the store", storeCode: code, status: answer.status)
        case (403, _), (401, _):
            return ObjectStoreError(
                .credentials,
                "the object store refused Steno's credentials for \(object): check STENO_S3_ACCESS_KEY_ID and STENO_S3_SECRET_ACCESS_KEY (and STENO_S3_REGION)",
                storeCode: code, status: answer.status)
        default:
            return ObjectStoreError(.refused, "the object store refused \(method.rawValue) of \(object)", storeCode: code, status: answer.status)
        }
    }
}

extension ObjectStore {
    /// Where Steno keeps the recordings it was given (uploads through steno-api, URLs it
    /// fetched): under the prefix, in `uploads/`.
    public var uploadsPrefix: String { configuration.prefix + "uploads/" }

    /// A new key for an upload, keeping the recording's extension (`.m4b`) for the player.
    public func newUploadKey(fileExtension: String) -> String {
        uploadsPrefix + UUID().uuidString.lowercased() + fileExtension
    }

    /// Removes the object a deleted media named when Steno stored it (an upload), and returns
    /// whether it did. Objects a user enqueued by their own `s3://` address are theirs: kept.
    public func removeUpload(source: String) async throws(ObjectStoreError) -> Bool {
        guard let address = ObjectAddress(source), address.bucket == bucket, address.key.hasPrefix(uploadsPrefix) else { return false }
        try await delete(address.key)
        return true
    }
}
