import CCurl

/// Owns one `curl_mime` multipart/form-data body, freed in `deinit`.
///
/// Part data is copied by curl when added, so callers may release their buffers at once.
/// The body must outlive the transfer that posts it.
final class CurlMime {
    let pointer: OpaquePointer

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

    func addFile(name: String, fileName: String, contentType: String, bytes: [UInt8]) throws(CurlCallError) {
        let part = try addPart(name: name)
        try bytes.withUnsafeBufferPointer { buffer throws(CurlCallError) in
            let base = UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self)
            try CurlCall.check(curl_mime_data(part, base, buffer.count), "curl_mime_data")
        }
        try CurlCall.check(curl_mime_filename(part, fileName), "curl_mime_filename")
        try CurlCall.check(curl_mime_type(part, contentType), "curl_mime_type")
    }

    private func addPart(name: String) throws(CurlCallError) -> OpaquePointer {
        guard let part = curl_mime_addpart(pointer) else {
            throw CurlCallError(call: "curl_mime_addpart", code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory")
        }
        try CurlCall.check(curl_mime_name(part, name), "curl_mime_name")
        return part
    }
}
