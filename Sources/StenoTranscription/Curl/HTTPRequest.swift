/// One request, as the engine sends it: a multipart/form-data upload to a backend, a body of
/// bytes (a webhook's JSON notice), or a GET whose answer goes to a file (a recording fetched
/// for an API client).
struct HTTPRequest: Sendable {
    struct FilePart: Sendable {
        var field: String
        var fileName: String
        var contentType: String
        var bytes: [UInt8]
        /// When set, the transfer drops the bytes once sent (it then cannot rewind), and gives
        /// them back here when it ends without having sent them all.
        var owner: UploadAudio?
    }

    enum Body: Sendable {
        case multipart(fields: [(name: String, value: String)], file: FilePart)
        /// Sent as is; the `Content-Type` goes in the header lines.
        case bytes([UInt8])
        /// A GET without a body.
        case none
    }

    var url: String
    /// A method other than the body's own (POST for a body, GET without): PUT, DELETE, HEAD.
    var method: String?

    /// Whether `url` is one the engine may send to: http or https, in any case (the engine also
    /// refuses every other protocol, but with curl's words).
    static func isHTTP(_ url: String) -> Bool {
        let lowered = url.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    /// Complete header lines, `Name: value`. They may carry secrets: never log them.
    var headerLines: [String]
    var body: Body
    var connectTimeout: Duration
    var totalTimeout: Duration
    /// An upload that sends no byte for this long is aborted.
    var stallTimeout: Duration
    /// Redirects followed (http and https only); 0 reports them as answers instead.
    var followRedirects = 0
    /// Checks each connection's address; nil connects anywhere (the operator's own URLs).
    var connectionGuard: ConnectionGuard?
    /// Where the answer's body goes instead of memory, with its own size limit.
    var bodyFile: ResponseFile?
}
