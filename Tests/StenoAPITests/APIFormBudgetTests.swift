import Foundation
import StenoCore
import StenoTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a multipart body's text fields can make steno-api hold: a field it would refuse is
/// refused at its header, and all text fields together have one budget, so the answer comes
/// while the client is still sending, not after the server has read (and kept) it all.
@Suite("steno-api: a form's text fields are refused as they come, not after the whole body")
struct APIFormBudgetTests {
    /// A client that sends `fields` parts of `fieldBytes` each, named by `name(index)`, as fast as
    /// the server reads them, until the server answers; how many bytes it had sent by then and
    /// the answer's first line and body. A server that holds every field until the body ends reads
    /// them all first.
    struct Streamed {
        var sent: Int
        var answer: String
    }

    static func stream(
        port: Int, path: String, key: String, fields: Int, fieldBytes: Int, name: @escaping @Sendable (Int) -> String
    ) async throws -> Streamed {
        try await withCheckedThrowingContinuation { continuation in
            // Blocking socket calls: on a thread of their own, off the pool the server's tasks run on.
            Thread.detachNewThread {
                continuation.resume(with: Result { try streamBlocking(port: port, path: path, key: key, fields: fields, fieldBytes: fieldBytes, name: name) })
            }
        }
    }

    struct SocketFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func streamBlocking(port: Int, path: String, key: String, fields: Int, fieldBytes: Int, name: (Int) -> String) throws -> Streamed {
        let boundary = "steno-budget-boundary"
        let value = [UInt8](repeating: UInt8(ascii: "a"), count: fieldBytes)
        func part(_ index: Int) -> [UInt8] {
            Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name(index))\"\r\n\r\n".utf8) + value + Array("\r\n".utf8)
        }
        let tail = Array("--\(boundary)--\r\n".utf8)
        let length = (0..<fields).reduce(tail.count) { $0 + part($1).count }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(description: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketFailure(description: "connect: \(errno)") }
        let head = Array(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(length)\r\n\r\n".utf8)
        var pending = head
        var index = 0
        var sent = 0
        var response: [UInt8] = []
        var finished = false
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN) | (finished ? 0 : Int16(POLLOUT)), revents: 0)
            // The only wait: for the socket, bounded so that a server that never answers fails.
            guard poll(&poller, 1, 60_000) > 0 else { throw SocketFailure(description: "no answer within 60 s after \(sent) bytes") }
            if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let read = recv(fd, &buffer, buffer.count, 0)
                if read > 0 {
                    response += buffer[0..<read]
                    // One answer is enough: its head and the short JSON body after it.
                    if let text = String(bytes: response, encoding: .utf8), text.contains("\r\n\r\n"), text.hasSuffix("}") || text.hasSuffix("}\n") { break }
                    continue
                }
                break
            }
            if pending.isEmpty {
                if index < fields {
                    pending = part(index)
                    index += 1
                } else if !finished {
                    pending = tail
                    finished = true
                }
            }
            if !pending.isEmpty {
                let wrote = pending.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if wrote < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    break  // the server closed its side after answering; read the answer above
                }
                sent += wrote
                pending.removeFirst(wrote)
            }
        }
        return Streamed(sent: sent, answer: String(decoding: response, as: UTF8.self))
    }

    @Test("an unknown field is refused at its header: 10,000 fields of 60 KB get their 400 after the first few, not after 600 MB")
    func unknownFieldAtItsHeader() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.submit)
            let streamed = try await Self.stream(port: api.port, path: "/v1/media", key: key, fields: 10_000, fieldBytes: 60_000) { "x\($0)" }
            #expect(streamed.answer.hasPrefix("HTTP/1.1 400"), "\(streamed.answer.prefix(300))")
            #expect(streamed.answer.contains("unknown field x0"), "\(streamed.answer.prefix(300))")
            // What the kernel's buffers take besides; a server that read to the end took 600 MB.
            #expect(streamed.sent < 16 << 20, "the server read \(streamed.sent) bytes before it answered")
            #expect(api.uploadedFiles.isEmpty)
        }
    }

    @Test("a known field past its most parts is refused at its header, on both endpoints")
    func tooManyParts() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.submit)
            let media = try await Self.stream(port: api.port, path: "/v1/media", key: key, fields: 10_000, fieldBytes: 60_000) { _ in "prompt" }
            #expect(media.answer.hasPrefix("HTTP/1.1 400") && media.answer.contains("prompt"), "\(media.answer.prefix(300))")
            #expect(media.sent < 16 << 20, "the server read \(media.sent) bytes before it answered")
            let openAI = try await Self.stream(port: api.port, path: "/v1/audio/transcriptions", key: key, fields: 10_000, fieldBytes: 60_000) { _ in
                "include[]"
            }
            #expect(openAI.answer.hasPrefix("HTTP/1.1 400") && openAI.answer.contains("include[]"), "\(openAI.answer.prefix(300))")
            #expect(openAI.sent < 16 << 20, "the server read \(openAI.sent) bytes before it answered")
        }
    }
}
