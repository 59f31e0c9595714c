import Foundation

/// The head of a request: what a script decides by.
public struct RequestHead: Sendable {
    public var method: String
    public var path: String
    /// In the order received; names as sent.
    public var headers: [(name: String, value: String)]

    init?(bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return nil }
        method = String(requestLine[0])
        path = String(requestLine[1])
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
    }

    public func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }

    var contentLength: Int { header("content-length").flatMap { Int($0) } ?? 0 }
}
