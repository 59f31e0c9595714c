import Crypto
public import Foundation
import StenoCore
import StenoInfrastructure
import StenoTranscription

#if canImport(Glibc)
import Glibc
#endif

extension ObjectStore {
    /// An object as Steno stored it: where, how large, the SHA-256 of its bytes, and the entity
    /// tag the store gives it (what later reads compare: `SourceObject`).
    public struct StoredObject: Sendable, Equatable {
        public var key: String
        public var size: Int64
        public var sha256: String
        public var etag: String?
    }

    /// Stores the file at `path` as `key`, reading it a part at a time, so that memory stays at
    /// one part (8 MiB) whatever the file's size: one PUT for a file up to a part, a multipart
    /// upload above. A multipart upload that fails is aborted, leaving no parts behind. The object
    /// is then asked for once: the store must hold as many bytes as were sent (else the object
    /// is removed and the upload fails), and its answer's entity tag is the one recorded.
    public func upload(fileAt path: String, as key: String, contentType: String = "application/octet-stream") async throws(ObjectStoreError) -> StoredObject {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw ObjectStoreError(.refused, "the file to store cannot be read")
        }
        defer { try? file.close() }
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        let partSize = configuration.partSize(forFileOf: fileSize)
        var whole = SHA256()
        // One buffer for every part, filled in place: an upload holds one part, and the copy
        // curl takes of it while sending (about 110 MB above idle with a Data read per part and
        // a new array each, against the 50 MB the issue allows).
        var part = [UInt8](repeating: 0, count: partSize)
        var filled = try Self.fill(&part, from: file)
        guard filled == partSize else {
            let body = Array(part[0..<filled])
            part = []
            whole.update(data: body)
            try await put(key, body, contentType: contentType)
            return try await confirmed(key, size: Int64(filled), sha256: SigV4Signer.hex(whole.finalize()))
        }
        let created = try await send(.post, key: key, query: [URLQueryItem(name: "uploads", value: "")], headers: ["content-type": contentType])
        guard let uploadID = S3XML(created.body)?.first("UploadId"), !uploadID.isEmpty else {
            throw ObjectStoreError(.refused, "the object store started no multipart upload for \(key)")
        }
        do throws(ObjectStoreError) {
            var parts: [(number: Int, etag: String)] = []
            var size: Int64 = 0
            while filled > 0 {
                let number = parts.count + 1
                let etag: String?
                do {
                    // The last part is shorter: sent as a copy of what was read. The body's
                    // scope ends before the buffer is filled again, which then needs no copy.
                    let body = filled == part.count ? part : Array(part[0..<filled])
                    whole.update(data: body)
                    let answer = try await send(
                        .put, key: key,
                        query: [URLQueryItem(name: "partNumber", value: String(number)), URLQueryItem(name: "uploadId", value: uploadID)],
                        body: body)
                    etag = answer.header("etag")
                }
                guard let etag else {
                    throw ObjectStoreError(.refused, "the object store gave part \(number) of \(key) no ETag")
                }
                size += Int64(filled)
                parts.append((number, etag))
                filled = try Self.fill(&part, from: file)
            }
            part = []
            try await complete(key: key, uploadID: uploadID, parts: parts)
            return try await confirmed(key, size: size, sha256: SigV4Signer.hex(whole.finalize()))
        } catch {
            try? await abort(key: key, uploadID: uploadID)
            throw error
        }
    }

    /// The object just stored as `key`, as the store now describes it, when it holds `size` bytes.
    func confirmed(_ key: String, size: Int64, sha256: String) async throws(ObjectStoreError) -> StoredObject {
        let found = try await head(key)
        guard let found, found.size == size else {
            try? await delete(key)
            throw ObjectStoreError(
                .refused, "the object store holds \(found.map { "\($0.size) bytes" } ?? "nothing") for \(key) after \(size) bytes were sent")
        }
        return StoredObject(key: key, size: size, sha256: sha256, etag: found.etag)
    }

    func complete(key: String, uploadID: String, parts: [(number: Int, etag: String)]) async throws(ObjectStoreError) {
        let body = "<CompleteMultipartUpload>"
            + parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(Self.escaped($0.etag))</ETag></Part>" }.joined()
            + "</CompleteMultipartUpload>"
        let answer = try await send(
            .post, key: key, query: [URLQueryItem(name: "uploadId", value: uploadID)], body: Array(body.utf8), headers: ["content-type": "application/xml"])
        // S3 may answer 200 with an error in the body when the completion fails late.
        if let xml = S3XML(answer.body), let code = xml.first("Code"), xml.first("ETag") == nil {
            throw ObjectStoreError(code == "SlowDown" || code == "InternalError" ? .unavailable : .refused, "the object store did not complete \(key)", storeCode: code, status: answer.status)
        }
    }

    func abort(key: String, uploadID: String) async throws(ObjectStoreError) {
        _ = try await send(.delete, key: key, query: [URLQueryItem(name: "uploadId", value: uploadID)], accepting: [200, 204, 404])
    }

    /// Aborts the multipart uploads under this store's prefix started more than
    /// `abandonedUploadAge` before `now` (an upload cut off and never resumed), and returns how
    /// many it aborted.
    public func abortAbandonedUploads(now: Date) async throws(ObjectStoreError) -> Int {
        let answer = try await send(.get, key: "", query: [URLQueryItem(name: "uploads", value: ""), URLQueryItem(name: "prefix", value: configuration.prefix)])
        let age = Double(configuration.abandonedUploadAge.components.seconds)
        var aborted = 0
        for upload in S3XML(answer.body)?.records("Upload") ?? [] {
            guard let key = upload["Key"], let id = upload["UploadId"], let initiated = upload["Initiated"].flatMap(Self.parseTime) else { continue }
            guard now.timeIntervalSince(initiated) > age else { continue }
            try await abort(key: key, uploadID: id)
            aborted += 1
        }
        return aborted
    }

    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// Fills `buffer` from `file` with read(2), in place, and returns how many bytes it holds:
    /// fewer than its size only at the end of the file.
    static func fill(_ buffer: inout [UInt8], from file: FileHandle) throws(ObjectStoreError) -> Int {
        let descriptor = file.fileDescriptor
        let result: Result<Int, ObjectStoreError> = buffer.withUnsafeMutableBytes { bytes in
            var filled = 0
            while filled < bytes.count {
                let count = Glibc.read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
                if count == 0 { break }
                if count < 0 {
                    if errno == EINTR { continue }
                    return .failure(ObjectStoreError(.refused, "the file to store could not be read: \(String(cString: strerror(errno)))"))
                }
                filled += count
            }
            return .success(filled)
        }
        return try result.get()
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
