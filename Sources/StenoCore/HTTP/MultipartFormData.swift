/// A `multipart/form-data` body (RFC 7578), split into its parts.
public struct MultipartFormData: Sendable {
    public struct Part: Sendable, Equatable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }

        public init(name: String, filename: String? = nil, contentType: String? = nil, body: [UInt8]) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.body = body
        }
    }

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    public var parts: [Part]

    /// The first part named `name`.
    public func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// Every part named `name`, such as the repeated `timestamp_granularities[]`.
    public func parts(named name: String) -> [Part] { parts.filter { $0.name == name } }

    /// The boundary of a `Content-Type: multipart/form-data; boundary=...` header, or `nil`.
    public static func boundary(fromContentType contentType: String) -> String? {
        let fields = contentType.split(separator: ";").map { $0.trimmingSpaces() }
        guard fields.first?.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
                return value.isEmpty || value.count > 70 ? nil : value
            }
        }
        return nil
    }

    public init(parsing body: [UInt8], boundary: String) throws(ParseError) {
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else {
            throw ParseError(description: "the body does not contain the multipart boundary")
        }
        position += delimiter.count
        var parts: [Part] = []
        while true {
            // After a delimiter: "--" closes the body, CRLF opens a part.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") {
                break
            }
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else {
                throw ParseError(description: "malformed multipart delimiter line")
            }
            position += 2
            guard let headerEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: position) else {
                throw ParseError(description: "a multipart part has no end of headers")
            }
            let headers = String(decoding: body[position..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let contentEnd = Self.find(separator, in: body, from: contentStart) else {
                throw ParseError(description: "the multipart body is truncated: a part has no closing boundary")
            }
            parts.append(try Self.part(headers: headers, body: Array(body[contentStart..<contentEnd])))
            position = contentEnd + separator.count
        }
        self.parts = parts
    }

    private static func part(headers: String, body: [UInt8]) throws(ParseError) -> Part {
        let header = try MultipartPartHeader(parsing: headers)
        return Part(name: header.name, filename: header.filename, contentType: header.contentType, body: body)
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
