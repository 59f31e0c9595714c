import Foundation
import Glibc

/// A request the server read in full, with its multipart/form-data parts decoded.
public struct RecordedRequest: Sendable {
    public struct Part: Sendable {
        public var name: String
        public var fileName: String?
        public var contentType: String?
        public var body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public var head: RequestHead
    public var body: [UInt8]
    public var parts: [Part]
    /// When the whole request had been read.
    public var receivedAt: ContinuousClock.Instant

    init(head: RequestHead, body: [UInt8]) {
        self.receivedAt = .now
        self.head = head
        self.body = body
        parts = Self.multipartParts(of: body, contentType: head.header("content-type") ?? "")
    }

    public func header(_ name: String) -> String? { head.header(name) }

    /// The text of every part named `name`, in order (`timestamp_granularities[]` may repeat).
    public func fields(_ name: String) -> [String] { parts.filter { $0.name == name }.map(\.text) }

    public func field(_ name: String) -> String? { fields(name).first }

    private static func multipartParts(of body: [UInt8], contentType: String) -> [Part] {
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
              let boundaryRange = contentType.range(of: "boundary=")
        else { return [] }
        let boundary = contentType[boundaryRange.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Part] = []
        var sections = split(body, by: delimiter)
        sections.removeFirst()  // the preamble
        for slice in sections {
            let section = Array(slice)
            // Each section is CRLF, part headers, CRLF CRLF, body, CRLF; the last is `--` CRLF.
            guard section.count >= 2, !(section[0] == 45 && section[1] == 45),
                  let headEnd = firstIndex(of: [13, 10, 13, 10], in: section)
            else { continue }
            let headText = String(decoding: section[2..<headEnd], as: UTF8.self)
            var partBody = Array(section[(headEnd + 4)...])
            if partBody.suffix(2) == [13, 10] { partBody.removeLast(2) }
            var part = Part(name: "", fileName: nil, contentType: nil, body: partBody)
            for line in headText.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = parameter("name", in: line) ?? ""
                    part.fileName = parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
        }
        return parts
    }

    private static func parameter(_ name: String, in line: String) -> String? {
        guard let range = line.range(of: " \(name)=\"") ?? line.range(of: ";\(name)=\"") else { return nil }
        let rest = line[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    private static func split(_ bytes: [UInt8], by delimiter: [UInt8]) -> [ArraySlice<UInt8>] {
        var sections: [ArraySlice<UInt8>] = []
        var start = 0
        while let found = firstIndex(of: delimiter, in: bytes, from: start) {
            sections.append(bytes[start..<found])
            start = found + delimiter.count
        }
        sections.append(bytes[start...])
        return sections
    }

    /// By `memchr` and `memcmp`: the bodies are whole uploads, and comparing slices byte by byte
    /// went through unspecialised generics in the debug build, a share of the worker phase's
    /// CPU that `perf` showed (docs/development.md, "The suite's wall time").
    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard !pattern.isEmpty, start >= 0, bytes.count - start >= pattern.count else { return nil }
        return bytes.withUnsafeBytes { haystack in
            pattern.withUnsafeBytes { needle in
                let base = haystack.baseAddress!
                let last = haystack.count - needle.count
                var offset = start
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(pattern[0]), last - offset + 1) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(hit, needle.baseAddress!, needle.count) == 0 { return index }
                    offset = index + 1
                }
                return nil
            }
        }
    }
}
