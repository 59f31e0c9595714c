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

    /// The whole body at once, read by the one multipart parser, `MultipartStreamParser`, as
    /// an upload streamed to disk is.
    public init(parsing body: [UInt8], boundary: String) throws(ParseError) {
        var parser = MultipartStreamParser(boundary: boundary)
        var parts: [Part] = []
        for event in try parser.feed(body) {
            switch event {
            case .partStart(let header):
                parts.append(Part(name: header.name, filename: header.filename, contentType: header.contentType, body: []))
            case .content(let bytes):
                parts[parts.count - 1].body.append(contentsOf: bytes)
            case .partEnd:
                break
            }
        }
        try parser.finish()
        self.parts = parts
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
