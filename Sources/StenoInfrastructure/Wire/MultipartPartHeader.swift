/// The headers of one part of a `multipart/form-data` body: its field name, and for a file its
/// file name and content type.
public struct MultipartPartHeader: Sendable, Equatable {
    public var name: String
    public var filename: String?
    public var contentType: String?

    public init(name: String, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
    }

    /// Reads the header lines of a part (without the blank line that ends them).
    public init(parsing headers: String) throws(MultipartFormData.ParseError) {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            if field == "content-disposition" {
                for parameter in value.split(separator: ";").dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
                    guard pair.count == 2 else { continue }
                    let unquoted = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
                    switch pair[0].lowercased() {
                    case "name": name = unquoted
                    case "filename": filename = unquoted
                    default: break
                    }
                }
            } else if field == "content-type" {
                contentType = value
            }
        }
        guard let name else { throw MultipartFormData.ParseError(description: "a multipart part has no name") }
        self.init(name: name, filename: filename, contentType: contentType)
    }
}
