import Foundation
import Hummingbird
import NIOPosix
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoObjectStore
import StenoTranscription

#if canImport(Glibc)
import Glibc
#endif

/// Takes a recording in for `POST /v1/media` and the OpenAI endpoint, apart from the routes: an
/// upload streamed to the upload directory, a URL fetched by this server under the outbound
/// policy, or a path confined to the media root; then checks that FFmpeg reads it, and removes
/// what a refused request left.
struct RecordingIntake: Sendable {
    let uploadDirectory: String?
    let mediaRoot: String?
    let maxUploadBytes: Int64
    let policy: OutboundURLPolicy
    let outbound: OutboundURLCheck
    let metrics: APIMetrics
    /// The object store recordings move to once received; nil keeps them in the upload directory.
    var objects: ObjectStore?

    func uploads() throws -> UploadReceiver {
        guard let directory = uploadDirectory else {
            throw APIError(
                .badRequest, code: "uploads_disabled", "this server takes no uploads: it has no upload directory", field: "file",
                hint: "send a url instead, or ask the operator to set STENO_UPLOAD_DIR")
        }
        return UploadReceiver(directory: directory, maxBytes: maxUploadBytes, metrics: metrics)
    }

    /// Exactly one of an upload, a URL and a path.
    static func requireOneSource(_ submission: MediaSubmission, upload: UploadReceiver.ReceivedFile?) throws {
        let given = [upload != nil, submission.url != nil, submission.path != nil].filter { $0 }.count
        guard given == 1 else {
            throw APIError.badRequest(
                given == 0 ? "send the recording as a file, or name it with url or path" : "send exactly one of file, url and path",
                field: given == 0 ? "file" : nil)
        }
    }

    /// `ep42.mp3` from `https://cdn.example/feed/ep42.mp3?token=...`: a name to list the media by
    /// (never the query, which may carry a token).
    static func title(fromURL url: String) -> String? {
        let path = url.split(separator: "?").first.map(String.init) ?? url
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        let decoded = name.removingPercentEncoding ?? name
        return decoded.isEmpty || decoded.contains(":") ? nil : String(decoded.prefix(200))
    }

    /// A URL source is fetched now, by this server, into the upload directory: every connection
    /// (redirects too) is checked against the outbound policy after name resolution, and the
    /// workers then read a file, never the client's URL.
    func fetch(_ url: String) async throws -> UploadReceiver.ReceivedFile {
        guard let directory = uploadDirectory else {
            throw APIError(
                .badRequest, code: "uploads_disabled", "this server fetches no URLs: it has no upload directory", field: "url",
                hint: "ask the operator to set STENO_UPLOAD_DIR")
        }
        try await outbound.check(url, field: "url")
        let path = directory + "/" + UUID().uuidString.lowercased() + UploadFile.fileExtension(of: Self.title(fromURL: url))
        let downloader = URLDownloader(policy: policy, maximumBytes: maxUploadBytes)
        switch await downloader.download(url, to: path) {
        case .success(let bytes):
            metrics.recordUpload(bytes: Int(bytes))
            return UploadReceiver.ReceivedFile(path: path, clientFilename: nil, bytes: bytes)
        case .failure(.refused(let refusal)):
            throw APIError(.badRequest, code: "url_not_allowed", "url: \(refusal)", field: "url")
        case .failure(.tooLarge):
            throw APIError(
                .contentTooLarge, code: "upload_too_large", "the recording at url is larger than this server's limit of \(maxUploadBytes >> 20) MiB",
                field: "url")
        case .failure(let failure):
            throw APIError(.badRequest, code: "url_unreachable", "url could not be fetched: \(failure)", field: "url",
                hint: "the URL must answer a GET with the recording, from a public address")
        }
    }

    /// A path inside the media root, symbolic links resolved, naming a readable, non-empty file.
    func confined(_ path: String) async throws -> String {
        guard let root = mediaRoot else {
            throw APIError.badRequest(
                "this server takes no path sources: it has no media root", field: "path",
                hint: "upload the file or send a url, or ask the operator to set STENO_MEDIA_ROOT")
        }
        return try await NIOThreadPool.singleton.runIfActive { () throws -> String in
            guard let realRoot = Self.realPath(root) else {
                throw APIError(.serviceUnavailable, code: "media_root_missing", "the server's media root does not exist", retryAfter: 60)
            }
            let candidate = path.hasPrefix("/") ? path : realRoot + "/" + path
            guard let real = Self.realPath(candidate), real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/") else {
                throw APIError.badRequest(
                    "path must name an existing file inside the media root", field: "path",
                    hint: "give it relative to the media root, such as podcasts/ep1.mp3")
            }
            var info = stat()
            guard stat(real, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw APIError.badRequest("path must name a regular file, not a directory or device", field: "path")
            }
            guard info.st_size > 0 else { throw APIError.badRequest("the file at path is empty", field: "path") }
            guard access(real, R_OK) == 0 else { throw APIError.badRequest("the file at path cannot be read by the server", field: "path") }
            return real
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// 415 for an upload no decoder reads, so that the client hears it now and not from a
    /// failed media later.
    static func checkDecodable(_ upload: UploadReceiver.ReceivedFile) async throws {
        do {
            _ = try await MediaFile.probe(MediaLocation(upload.path), verifyingEnd: false)
        } catch {
            switch error.code {
            case .notMediaFile, .noAudioStream, .unsupportedCodec, .emptyFile, .corrupt, .truncated:
                throw APIError(
                    .unsupportedMediaType, code: "unreadable_media", "the uploaded file cannot be transcribed: \(error.reason)", field: "file",
                    hint: "send an audio or video file FFmpeg reads, such as mp3, m4a, m4b, wav, flac, ogg, opus, mp4 or mkv")
            default:
                throw error
            }
        }
    }

    /// The source a received recording is kept as: its path in the upload directory, or, with an
    /// object store, the object it was moved to (`s3://bucket/uploads/...`), read back a part at a
    /// time so that memory stays flat for any size, with its size, entity tag and SHA-256 as
    /// every later read checks them (`SourceObject`). The local copy is removed once stored.
    func keep(_ upload: UploadReceiver.ReceivedFile) async throws -> (source: String, object: SourceObject?) {
        guard let objects else { return (upload.path, nil) }
        let key = objects.newUploadKey(fileExtension: UploadFile.fileExtension(of: upload.clientFilename ?? upload.path))
        let stored: ObjectStore.StoredObject
        do {
            stored = try await objects.upload(fileAt: upload.path, as: key)
        } catch {
            throw Self.storeFailure(error)
        }
        await Self.remove(upload)
        // The part buffers are free: give their pages back, so that a large upload does not
        // leave the server's memory at its peak.
        MediaMemory.returnFreePages()
        return (objects.address(of: stored.key).description, SourceObject(size: stored.size, etag: stored.etag, sha256: stored.sha256))
    }

    /// Removes a recording this server kept in the object store (a request refused after it was
    /// stored, a replay); a path source is removed as a file.
    func discard(source: String) async {
        if let objects, ObjectAddress(source) != nil {
            _ = try? await objects.removeUpload(source: source)
        } else if let uploadDirectory, source.hasPrefix(uploadDirectory + "/") {
            await Self.removeFile(at: source)
        }
    }

    /// What a client hears when the store fails: 503 with a retry while it is unavailable, 500
    /// naming no setting (the operator's log does) when it refuses the configuration.
    static func storeFailure(_ error: ObjectStoreError) -> APIError {
        if error.isTransient {
            return APIError(.serviceUnavailable, code: "store_unavailable", "the media store is unavailable; send the recording again shortly", retryAfter: 30)
        }
        return APIError(.internalServerError, code: "store_failed", "the recording could not be stored: the server's media store refused it")
    }

    static func remove(_ upload: UploadReceiver.ReceivedFile?) async {
        guard let upload else { return }
        await removeFile(at: upload.path)
    }

    static func removeFile(at path: String) async {
        _ = try? await NIOThreadPool.singleton.runIfActive { unlink(path) }
    }
}
