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
