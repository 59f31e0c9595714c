import CCurl

/// Owns one `CURLM` multi handle, cleaned up in `deinit`.
///
/// Only the engine thread calls it, except `wakeup()`, which libcurl allows from any thread.
final class CurlMultiHandle: @unchecked Sendable {
    // @unchecked: every method but `wakeup()` is called on the engine thread only.
    let pointer: UnsafeMutableRawPointer

    init() throws(CurlCallError) {
        guard let pointer = curl_multi_init() else {
            throw CurlCallError(call: "curl_multi_init", code: Int(CURLM_OUT_OF_MEMORY.rawValue), message: "could not create a curl multi handle")
        }
        self.pointer = pointer
    }

    deinit {
        curl_multi_cleanup(pointer)
    }

    func add(_ easy: CurlEasyHandle) throws(CurlCallError) {
        try CurlCall.check(curl_multi_add_handle(pointer, easy.pointer), "curl_multi_add_handle")
    }

    func remove(_ easy: CurlEasyHandle) throws(CurlCallError) {
        try CurlCall.check(curl_multi_remove_handle(pointer, easy.pointer), "curl_multi_remove_handle")
    }

    /// Moves every transfer forward as far as it can go without blocking.
    func perform() throws(CurlCallError) {
        var running: Int32 = 0
        try CurlCall.check(curl_multi_perform(pointer, &running), "curl_multi_perform")
    }

    /// Blocks until a socket is ready, curl's own timer is due, `wakeup()` is called, or the timeout passes.
    func poll(timeoutMilliseconds: Int32) throws(CurlCallError) {
        try CurlCall.check(curl_multi_poll(pointer, nil, 0, timeoutMilliseconds, nil), "curl_multi_poll")
    }

    func wakeup() {
        // Fails only if the multi handle is invalid; the engine's poll timeout bounds the delay anyway.
        try? CurlCall.check(curl_multi_wakeup(pointer), "curl_multi_wakeup")
    }

    /// The transfers that finished since the last call, with curl's result for each.
    func finishedTransfers() -> [(easy: UnsafeMutableRawPointer, result: CURLcode)] {
        var finished: [(easy: UnsafeMutableRawPointer, result: CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(pointer, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                finished.append((easy, message.pointee.data.result))
            }
        }
        return finished
    }
}
