import StenoCore
import StenoInfrastructure
import Testing

@Suite("MultipartFormData")
struct MultipartFormDataTests {
    static let boundary = "----steno7MA4YWxkTrZu0gW"

    static func body(_ parts: [(headers: String, content: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = Array("preamble is ignored\r\n".utf8)
        for part in parts {
            bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        return bytes + Array("--\(boundary)--\r\n".utf8)
    }

    @Test("splits fields and a binary file, keeping bytes that look like boundaries")
    func parts() throws {
        let audio: [UInt8] = [0x66, 0x4c, 0x61, 0x43, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff]
        let body = Self.body([
            ("Content-Disposition: form-data; name=\"model\"", Array("whisper-1".utf8)),
            ("Content-Disposition: form-data; name=\"file\"; filename=\"chunk.flac\"\r\nContent-Type: audio/flac", audio),
            ("Content-Disposition: form-data; name=\"timestamp_granularities[]\"", Array("word".utf8)),
            ("Content-Disposition: form-data; name=\"timestamp_granularities[]\"", Array("segment".utf8)),
        ])
        let form = try MultipartFormData(parsing: body, boundary: Self.boundary)
        #expect(form.part("model")?.text == "whisper-1")
        #expect(form.part("file")?.filename == "chunk.flac")
        #expect(form.part("file")?.contentType == "audio/flac")
        #expect(form.part("file")?.body == audio)
        #expect(form.parts(named: "timestamp_granularities[]").map(\.text) == ["word", "segment"])
    }

    @Test("reads the boundary from the content type, quoted or not")
    func boundaryHeader() {
        #expect(MultipartFormData.boundary(fromContentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartFormData.boundary(fromContentType: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(MultipartFormData.boundary(fromContentType: "application/json") == nil)
        #expect(MultipartFormData.boundary(fromContentType: "multipart/form-data") == nil)
    }

    @Test("a truncated body is an error, not a short part")
    func truncated() {
        var body = Self.body([("Content-Disposition: form-data; name=\"file\"; filename=\"a.wav\"", Array(repeating: 1, count: 100))])
        body.removeLast(40)
        #expect(throws: MultipartFormData.ParseError.self) { try MultipartFormData(parsing: body, boundary: Self.boundary) }
        #expect(throws: MultipartFormData.ParseError.self) { try MultipartFormData(parsing: Array("no boundary".utf8), boundary: Self.boundary) }
    }
}
