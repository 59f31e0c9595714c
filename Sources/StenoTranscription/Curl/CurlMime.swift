import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Owns one `curl_mime` multipart/form-data body, freed in `deinit`.
///
/// Text fields are copied by curl when added. The file's bytes are not: curl reads them from
/// the caller's array through a callback (`curl_mime_data_cb`), which keeps the array alive
/// until curl frees the part, so a chunk's audio is held once, not once more per transfer; or,
/// with `releasedAfterSending`, only until curl has read the last byte (a rewind after that fails
/// the transfer, and the caller's retry makes the bytes again).
final class CurlMime {
    let pointer: OpaquePointer
    /// The file parts' sources, to settle them when the transfer ends (`settle`).
    private var sources: [CurlMimeSource] = []

    init(for easy: CurlEasyHandle) throws(CurlCallError) {
        guard let pointer = curl_mime_init(easy.pointer) else {
            throw CurlCallError(call: "curl_mime_init", code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory")
        }
        self.pointer = pointer
    }

    deinit {
        curl_mime_free(pointer)
    }

    func addField(name: String, value: String) throws(CurlCallError) {
        let part = try addPart(name: name)
        try CurlCall.check(curl_mime_data(part, value, Int(CURL_ZERO_TERMINATED)), "curl_mime_data")
    }

    func addFile(name: String, fileName: String, contentType: String, bytes: [UInt8], owner: UploadAudio? = nil) throws(CurlCallError) {
        let part = try addPart(name: name)
        // Retained for curl; `curlMimeFree` releases it when the part is freed.
        let kept = CurlMimeSource(bytes, owner: owner)
        sources.append(kept)
        let source = Unmanaged.passRetained(kept).toOpaque()
        let code = curl_mime_data_cb(part, curl_off_t(bytes.count), curlMimeRead, curlMimeSeek, curlMimeFree, source)
        if code != CURLE_OK {
            // curl did not take the callbacks, so it will not call the free one.
            Unmanaged<CurlMimeSource>.fromOpaque(source).release()
        }
        try CurlCall.check(code, "curl_mime_data_cb")
        try CurlCall.check(curl_mime_filename(part, fileName), "curl_mime_filename")
        try CurlCall.check(curl_mime_type(part, contentType), "curl_mime_type")
    }

    /// Hands bytes that were never sent in full back to their owner now that the transfer has
    /// ended, before its caller hears how it ended: a retry then finds them, instead of racing the
    /// moment the transfer is freed and making the audio again.
    func settle() {
        sources.forEach { $0.settle() }
    }

    private func addPart(name: String) throws(CurlCallError) -> OpaquePointer {
        guard let part = curl_mime_addpart(pointer) else {
            throw CurlCallError(call: "curl_mime_addpart", code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory")
        }
        try CurlCall.check(curl_mime_name(part, name), "curl_mime_name")
        return part
    }
}

/// A file part's bytes and how far curl has read them; touched only by curl's callbacks, on the
/// engine thread.
private final class CurlMimeSource {
    private(set) var bytes: [UInt8]
    let count: Int
    /// Set when the bytes are dropped once sent, and handed back if they never were.
    let owner: UploadAudio?
    var position = 0
    /// Whether the bytes were handed back already (`settle`): at most once.
    private var settled = false

    init(_ bytes: [UInt8], owner: UploadAudio?) {
        self.bytes = bytes
        self.count = bytes.count
        self.owner = owner
    }

    var releasedAfterSending: Bool { owner != nil }

    deinit {
        settle()
    }

    func settle() {
        guard let owner, !released, !settled else { return }
        settled = true
        owner.giveBack(bytes)
    }

    /// Whether the bytes are gone, sent and dropped.
    var released: Bool { releasedAfterSending && bytes.count != count }

    func releaseIfSent() {
        if releasedAfterSending && position == count { bytes = [] }
    }
}

private func curlMimeRead(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return 0 }
    let source = Unmanaged<CurlMimeSource>.fromOpaque(context).takeUnretainedValue()
    guard !source.released else { return 0 }
    let length = min(size * count, source.count - source.position)
    guard length > 0 else { return 0 }
    source.bytes.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + source.position, byteCount: length)
    }
    source.position += length
    source.releaseIfSent()
    return length
}

private func curlMimeSeek(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let context else { return Int32(CURL_SEEKFUNC_FAIL) }
    let source = Unmanaged<CurlMimeSource>.fromOpaque(context).takeUnretainedValue()
    // curl rewinds a part to send it again (a retried connection); it only seeks from the start.
    guard origin == SEEK_SET, offset >= 0, offset <= source.count else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    // Sent and dropped: only a seek to the end (nothing more to send) can be honoured.
    if source.released && offset != source.count { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    source.position = Int(offset)
    return Int32(CURL_SEEKFUNC_OK)
}

private func curlMimeFree(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<CurlMimeSource>.fromOpaque(context).release()
}
