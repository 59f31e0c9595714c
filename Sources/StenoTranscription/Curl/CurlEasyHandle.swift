import CCurl

/// Owns one `CURL` easy handle and its error buffer, cleaned up in `deinit`.
///
/// Not thread-safe: a `CurlTransfer` configures it on the caller's thread before handing it to
/// the engine, and from then on only the engine thread touches it.
final class CurlEasyHandle {
    let pointer: UnsafeMutableRawPointer
    /// curl writes a human-readable reason for a failed transfer here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init() throws(CurlCallError) {
        guard let pointer = curl_easy_init() else {
            throw CurlCallError(call: "curl_easy_init", code: Int(CURLE_FAILED_INIT.rawValue), message: "could not create a curl handle")
        }
        self.pointer = pointer
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) throws(CurlCallError) {
        try CurlCall.check(steno_curl_easy_setopt_long(pointer, option, value), "curl_easy_setopt")
    }

    func set(_ option: CURLoption, _ value: String) throws(CurlCallError) {
        // curl copies string options (since 7.17), so the temporary C string may go away.
        try CurlCall.check(steno_curl_easy_setopt_string(pointer, option, value), "curl_easy_setopt")
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(CurlCallError) {
        try CurlCall.check(steno_curl_easy_setopt_pointer(pointer, option, value), "curl_easy_setopt")
    }

    func set(_ option: CURLoption, list: CurlHeaderList) throws(CurlCallError) {
        try CurlCall.check(steno_curl_easy_setopt_slist(pointer, option, list.pointer), "curl_easy_setopt")
    }

    func set(_ option: CURLoption, writeCallback: CurlWriteCallback) throws(CurlCallError) {
        try CurlCall.check(steno_curl_easy_setopt_write_callback(pointer, option, writeCallback), "curl_easy_setopt")
    }

    func set(progressCallback: CurlProgressCallback) throws(CurlCallError) {
        try CurlCall.check(steno_curl_easy_setopt_xferinfo_callback(pointer, progressCallback), "curl_easy_setopt")
    }

    func set(mime: CurlMime) throws(CurlCallError) {
        try CurlCall.check(steno_curl_easy_setopt_pointer(pointer, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime.pointer)), "curl_easy_setopt")
    }

    /// A POST of `bytes` as they are; curl copies them, so they need not outlive the call.
    func set(postBody bytes: [UInt8]) throws(CurlCallError) {
        // The size first: with it curl copies exactly that many bytes, NULs included (and none
        // for an empty body, which still needs a pointer, or curl would take strlen of it).
        try set(CURLOPT_POSTFIELDSIZE, bytes.count)
        let body = bytes.isEmpty ? [0] : bytes
        let code = body.withUnsafeBytes { buffer in
            steno_curl_easy_setopt_pointer(pointer, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
        }
        try CurlCall.check(code, "curl_easy_setopt")
    }

    func set(openSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t)
        throws(CurlCallError)
    {
        try CurlCall.check(steno_curl_easy_setopt_opensocket_callback(pointer, openSocketCallback), "curl_easy_setopt")
    }

    /// The URL curl is fetching now (after redirects), or nil.
    var effectiveURL: String? {
        var value: UnsafeMutablePointer<CChar>?
        guard steno_curl_easy_getinfo_string(pointer, CURLINFO_EFFECTIVE_URL, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    func responseCode() throws(CurlCallError) -> Int {
        var code = 0
        try CurlCall.check(steno_curl_easy_getinfo_long(pointer, CURLINFO_RESPONSE_CODE, &code), "curl_easy_getinfo")
        return code
    }

    /// Whether connecting (and the TLS handshake) is over and the request is being sent.
    var isReadyToTransfer: Bool {
        var microseconds: curl_off_t = 0
        // A failing getinfo leaves 0: "not yet", which defers only the stall check.
        return (try? CurlCall.check(
            steno_curl_easy_getinfo_off_t(pointer, CURLINFO_PRETRANSFER_TIME_T, &microseconds), "curl_easy_getinfo")) != nil
            && microseconds > 0
    }

    /// What curl wrote into the error buffer for the last failed transfer, if anything.
    var errorMessage: String? {
        let message = String(cString: errorBuffer).trimmingWhitespace
        return message.isEmpty ? nil : message
    }
}
