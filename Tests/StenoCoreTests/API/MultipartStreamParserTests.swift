import StenoCore
import StenoInfrastructure
import Testing

@Suite("multipart: streamed parsing")
struct MultipartStreamParserTests {
    static let boundary = "----steno7MA4YWxkTrZu0gW"

    static func body(file: [UInt8]) -> [UInt8] {
        var body = Array("preamble\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nThe Keeper\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"book.mp3\"\r\nContent-Type: audio/mpeg\r\n\r\n".utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return body
    }

    /// Parses `body` fed in pieces of `size` bytes and gathers the parts.
    static func parse(_ body: [UInt8], pieces size: Int) throws -> [MultipartFormData.Part] {
        var parser = MultipartStreamParser(boundary: boundary)
        var parts: [MultipartFormData.Part] = []
        var start = 0
        while start < body.count {
            let end = min(body.count, start + size)
            for event in try parser.feed(body[start..<end]) {
                switch event {
                case let .partStart(header):
                    parts.append(.init(name: header.name, filename: header.filename, contentType: header.contentType, body: []))
                case let .content(bytes):
                    parts[parts.count - 1].body += bytes
                case .partEnd:
                    break
                }
            }
            start = end
        }
        try parser.finish()
        return parts
    }

    @Test("fed in pieces of any size, it gives the parts the whole-body parser gives", arguments: [1, 2, 3, 7, 31, 32, 33, 64, 1000, 100_000])
    func anyPieceSize(_ size: Int) throws {
        // Content that looks like the start of a boundary, to be kept back and then let go.
        let file = Array("ID3\r\n--not-the-boundary\r\n-".utf8) + (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) } + Array("\r\n--".utf8)
        let body = Self.body(file: file)
        let whole = try MultipartFormData(parsing: body, boundary: Self.boundary)
        let streamed = try Self.parse(body, pieces: size)
        #expect(streamed == whole.parts)
        #expect(streamed.count == 2)
        #expect(streamed[1].body == file)
        #expect(streamed[1].filename == "book.mp3")
    }

    @Test("a body cut short is refused at the end")
    func truncatedBody() throws {
        let body = Self.body(file: Array(repeating: 7, count: 100))
        #expect(throws: MultipartFormData.ParseError.self) {
            _ = try Self.parse(Array(body.dropLast(10)), pieces: 16)
        }
    }

    @Test("headers that never end are refused instead of kept")
    func endlessHeaders() {
        var parser = MultipartStreamParser(boundary: Self.boundary)
        #expect(throws: MultipartFormData.ParseError.self) {
            _ = try parser.feed(Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"x\"".utf8))
            for _ in 0..<20 { _ = try parser.feed(Array(repeating: UInt8(ascii: "a"), count: 1024)) }
        }
    }
}
