import CCurl

/// The C signatures of the callbacks curl calls during a transfer.
typealias CurlWriteCallback = @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int
typealias CurlProgressCallback = @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32
