/// Reads a `multipart/form-data` body as it arrives, so that a file part of any size goes
/// straight to disk: `feed` returns what the new bytes completed, and keeps back only the few
/// bytes that could be the start of a boundary. Memory stays at one read plus the headers.
public struct MultipartStreamParser: Sendable {
    public enum Event: Sendable, Equatable {
        /// A part begins.
        case partStart(MultipartPartHeader)
        /// The next bytes of the current part's content.
        case content([UInt8])
        /// The current part is complete.
        case partEnd
    }

    /// Headers of one part longer than this are refused (a body that never ends its headers).
    public static let longestHeaders = 16 * 1024

    private enum State: Sendable {
        case preamble
        case afterDelimiter
        case headers
        case content
        case done
    }

    private let delimiter: [UInt8]
    private let separator: [UInt8]
    private var buffer: [UInt8] = []
    private var state = State.preamble

    public init(boundary: String) {
        delimiter = Array("--\(boundary)".utf8)
        separator = Array("\r\n--\(boundary)".utf8)
    }

    /// True once the closing boundary was read.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(MultipartFormData.ParseError) -> [Event] where Bytes.Element == UInt8 {
        if case .done = state { return [] }
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while true {
            switch state {
            case .preamble:
                guard let start = MultipartFormData.find(delimiter, in: buffer, from: 0) else {
                    // Keep what could be the start of the first delimiter.
                    buffer.removeFirst(max(0, buffer.count - delimiter.count))
                    return events
                }
                buffer.removeFirst(start + delimiter.count)
                state = .afterDelimiter
            case .afterDelimiter:
                guard buffer.count >= 2 else { return events }
                if buffer[0] == UInt8(ascii: "-"), buffer[1] == UInt8(ascii: "-") {
                    buffer = []
                    state = .done
                    return events
                }
                guard buffer[0] == 13, buffer[1] == 10 else {
                    throw MultipartFormData.ParseError(description: "malformed multipart delimiter line")
                }
                buffer.removeFirst(2)
                state = .headers
            case .headers:
                guard let end = MultipartFormData.find(Self.headerEnd, in: buffer, from: 0) else {
                    if buffer.count > Self.longestHeaders {
                        throw MultipartFormData.ParseError(description: "a multipart part's headers are longer than \(Self.longestHeaders) bytes")
                    }
                    return events
                }
                let header = try MultipartPartHeader(parsing: String(decoding: buffer[..<end], as: UTF8.self))
                buffer.removeFirst(end + Self.headerEnd.count)
                events.append(.partStart(header))
                state = .content
            case .content:
                if let end = MultipartFormData.find(separator, in: buffer, from: 0) {
                    if end > 0 { events.append(.content(Array(buffer[..<end]))) }
                    events.append(.partEnd)
                    buffer.removeFirst(end + separator.count)
                    state = .afterDelimiter
                    continue
                }
                // Everything but a possible partial separator at the end is content.
                let safe = buffer.count - (separator.count - 1)
                if safe > 0 {
                    events.append(.content(Array(buffer[..<safe])))
                    buffer.removeFirst(safe)
                }
                return events
            case .done:
                return events
            }
        }
    }

    /// Fails unless the body ended with its closing boundary.
    public func finish() throws(MultipartFormData.ParseError) {
        guard isComplete else {
            throw MultipartFormData.ParseError(description: "the multipart body is truncated: it has no closing boundary")
        }
    }

    private static let headerEnd = Array("\r\n\r\n".utf8)
}
