import StenoCore

/// One multipart/form-data POST, as the engine sends it.
struct HTTPRequest: Sendable {
    struct FilePart: Sendable {
        var field: String
        var fileName: String
        var contentType: String
        var bytes: [UInt8]
    }

    var url: String
    /// Complete header lines, `Name: value`. They may carry secrets: never log them.
    var headerLines: [String]
    var fields: [(name: String, value: String)]
    var file: FilePart
    var connectTimeout: Duration
    var totalTimeout: Duration
    /// An upload that sends no byte for this long is aborted.
    var stallTimeout: Duration
}

/// A backend's answer, whatever its status.
struct HTTPResponse: Sendable {
    var status: Int
    /// Header names in lower case; the last value wins when a header repeats.
    var headers: [String: String]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a transfer ended without an HTTP response.
enum TransportFailure: Error, Sendable {
    /// The cancel signal or the calling task stopped it.
    case cancelled
    /// The upload sent no byte for the stall timeout.
    case stalled(Duration)
    /// The response body was larger than any transcription can be.
    case responseTooLarge(limit: Int)
    /// curl ended the transfer with this code; `message` is curl's own explanation.
    case curl(code: Int, message: String)
    /// Setting the transfer up failed: a fault in Steno or its environment.
    case setup(CurlCallError)
}
