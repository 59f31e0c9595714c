import Foundation
import Hummingbird
import Logging
import NIOCore
import _NIOFileSystem
import StenoCore
import StenoInfrastructure

/// Reads a `multipart/form-data` request as it arrives: its one file part is written straight to
/// a new file in the upload directory (never held in memory), its other fields are kept as text.
/// A body larger than the limit, cut short or malformed leaves no file behind.
struct UploadReceiver: Sendable {
    let directory: String
    let maxBytes: Int64
    let metrics: APIMetrics

    /// A text field longer than this is refused (a prompt is at most 1,000 characters).
    static let longestField = 64 * 1024
    /// Except a known speaker's reference clip, a data URL of up to 30 s of audio: 8 MB holds
    /// 30 s of 48 kHz 16-bit stereo WAV in base64 (OpenAI asks for 2 to 10 s).
    static let longestReference = 8 * 1024 * 1024
    static func longest(_ field: String) -> Int {
        field == "known_speaker_references[]" ? longestReference : longestField
    }

    /// Every text field of one request together: four reference clips at their longest and
    /// sixteen other fields at theirs. Text is held in memory until the form is read; the file
    /// part is not, and counts against `maxBytes` instead.
    static let longestFields = 4 * longestReference + 16 * longestField

    /// The text fields a form takes. Any other is refused at its header, before its value is
    /// read; a field past its most parts is refused the same way.
    struct Fields: Sendable {
        var accepted: Set<String>
        /// Fields that may come more than once, and how often at most; others come at most
        /// `defaultMostParts` times.
        var mostParts: [String: Int] = [:]
        /// The error for a field not in `accepted`, which names what is.
        var unknown: @Sendable (String) -> APIError

        static let defaultMostParts = 8

        func check(_ name: String, seen: Int) throws {
            guard accepted.contains(name) else { throw unknown(name) }
            let most = mostParts[name] ?? Self.defaultMostParts
            guard seen < most else {
                throw APIError.badRequest("\(name) comes at most \(most) time\(most == 1 ? "" : "s") in one request", field: name)
            }
        }
    }

    struct Form: Sendable {
        var fields: [String: [String]] = [:]
        var file: ReceivedFile?

        func field(_ name: String) -> String? { fields[name]?.first }
    }

    struct ReceivedFile: Sendable {
        var path: String
        var clientFilename: String?
        var bytes: Int64
    }

    func receive(_ request: Request, fields: Fields, fileField: String = "file") async throws -> Form {
        guard let contentType = request.headers[.contentType],
            let boundary = MultipartFormData.boundary(fromContentType: contentType)
        else {
            throw APIError(.unsupportedMediaType, code: "unsupported_content_type", "send multipart/form-data with a boundary, or application/json")
        }
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > maxBytes + Int64(Self.longestField) {
            throw tooLarge()
        }
        var parser = MultipartStreamParser(boundary: boundary)
        var form = Form()
        var currentField: (name: String, value: [UInt8])?
        var textBytes = 0
        var received: Int64 = 0
        var writer: UploadFile?
        do {
            for try await buffer in request.body {
                received += Int64(buffer.readableBytes)
                if received > maxBytes + Int64(Self.longestField) { throw tooLarge() }
                for event in try parse(&parser, buffer) {
                    switch event {
                    case let .partStart(header):
                        if header.name == fileField {
                            guard writer == nil else { throw APIError.badRequest("send one file per request", field: fileField) }
                            writer = try await UploadFile.create(in: directory, clientFilename: header.filename)
                        } else {
                            try fields.check(header.name, seen: form.fields[header.name]?.count ?? 0)
                            currentField = (header.name, [])
                        }
                    case let .content(bytes):
                        if currentField != nil {
                            currentField!.value.append(contentsOf: bytes)
                            textBytes += bytes.count
                            if currentField!.value.count > Self.longest(currentField!.name) {
                                throw APIError.badRequest("the field is longer than \(Self.longest(currentField!.name)) bytes", field: currentField!.name)
                            }
                            if textBytes > Self.longestFields {
                                throw APIError.badRequest(
                                    "the form's text fields come to more than \(Self.longestFields >> 20) MiB together", field: currentField!.name)
                            }
                        } else if let file = writer {
                            if file.bytes + Int64(bytes.count) > maxBytes { throw tooLarge() }
                            try await file.write(bytes)
                        }
                    case .partEnd:
                        if let field = currentField {
                            form.fields[field.name, default: []].append(String(decoding: field.value, as: UTF8.self))
                            currentField = nil
                        } else if let file = writer, form.file == nil {
                            try await file.close()
                            form.file = ReceivedFile(path: file.path, clientFilename: file.clientFilename, bytes: file.bytes)
                        }
                    }
                }
            }
            do {
                try parser.finish()
            } catch {
                throw APIError.badRequest("the multipart body is malformed: \(error)")
            }
            metrics.recordUpload(bytes: Int(received))
            return form
        } catch {
            await writer?.discard()
            throw error
        }
    }

    private func parse(_ parser: inout MultipartStreamParser, _ buffer: ByteBuffer) throws -> [MultipartStreamParser.Event] {
        do {
            return try parser.feed(buffer.readableBytesView)
        } catch {
            throw APIError.badRequest("the multipart body is malformed: \(error)")
        }
    }

    private func tooLarge() -> APIError {
        APIError(
            .contentTooLarge, code: "upload_too_large", "the upload is larger than this server's limit of \(maxBytes >> 20) MiB",
            hint: "the operator sets the limit with STENO_API_MAX_UPLOAD_MB; a recording on a server can be sent as a URL instead")
    }
}

/// A file being written in the upload directory: made new (never replacing one), written in
/// order, and removed again when the upload fails.
final class UploadFile: @unchecked Sendable {
    // Only the task receiving the upload touches it, one call at a time.
    let path: String
    let clientFilename: String?
    private(set) var bytes: Int64 = 0
    private let handle: WriteFileHandle
    private var writer: BufferedWriter<WriteFileHandle>
    private var closed = false

    private init(path: String, clientFilename: String?, handle: WriteFileHandle) {
        self.path = path
        self.clientFilename = clientFilename
        self.handle = handle
        self.writer = handle.bufferedWriter(capacity: .kibibytes(512))
    }

    static func create(in directory: String, clientFilename: String?) async throws -> UploadFile {
        let path = directory + "/" + UUID().uuidString.lowercased() + Self.fileExtension(of: clientFilename)
        do {
            let handle = try await FileSystem.shared.openFile(forWritingAt: FilePath(path), options: .newFile(replaceExisting: false))
            return UploadFile(path: path, clientFilename: clientFilename, handle: handle)
        } catch {
            throw APIError(
                .serviceUnavailable, code: "upload_directory_unwritable", "the server cannot write to its upload directory",
                hint: "the operator checks STENO_UPLOAD_DIR: it must exist and be writable by steno-api", retryAfter: 60)
        }
    }

    func write(_ bytes: [UInt8]) async throws {
        _ = try await writer.write(contentsOf: bytes)
        self.bytes += Int64(bytes.count)
    }

    func close() async throws {
        guard !closed else { return }
        closed = true
        try await writer.flush()
        try await handle.close()
    }

    func discard() async {
        if !closed {
            closed = true
            try? await handle.close()
        }
        _ = try? await FileSystem.shared.removeItem(at: FilePath(path))
    }

    /// `.mp3` from `talk.MP3`: letters and digits only, so that a client's name cannot reach
    /// outside the directory or confuse a shell; none when there is no usable one.
    static func fileExtension(of filename: String?) -> String {
        guard let filename, let dot = filename.lastIndex(of: ".") else { return "" }
        let ext = filename[filename.index(after: dot)...].lowercased()
        guard (1...10).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return "." + ext
    }
}
