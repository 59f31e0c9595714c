/// A libcurl call that failed outside of a transfer.
struct CurlCallError: Error, Sendable, CustomStringConvertible {
    let call: String
    let code: Int
    let message: String

    var description: String { "\(call) failed with code \(code): \(message)" }
}
