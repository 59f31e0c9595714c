import CCurl

/// The one place where libcurl's return codes are checked.
///
/// A failing setup call (an option curl does not know, no memory) is a fault in Steno or its
/// environment, not in the backend: it maps to `internal`.
enum CurlCall {
    static func check(_ code: CURLcode, _ call: StaticString) throws(CurlCallError) {
        guard code != CURLE_OK else { return }
        throw CurlCallError(call: "\(call)", code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
    }

    static func check(_ code: CURLMcode, _ call: StaticString) throws(CurlCallError) {
        guard code != CURLM_OK else { return }
        throw CurlCallError(call: "\(call)", code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))
    }
}
