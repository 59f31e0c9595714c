import CCurl

/// Owns one `curl_slist` of request header lines, freed in `deinit`.
///
/// curl copies each line when it is appended; the list must outlive the transfer that uses it.
final class CurlHeaderList {
    private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    init(lines: [String]) throws(CurlCallError) {
        for line in lines {
            guard let extended = curl_slist_append(pointer, line) else {
                throw CurlCallError(call: "curl_slist_append", code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory")
            }
            pointer = extended
        }
    }

    deinit {
        curl_slist_free_all(pointer)
    }
}
