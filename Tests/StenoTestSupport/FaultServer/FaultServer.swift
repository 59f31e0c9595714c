import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
import StenoInfrastructure
#endif

/// A real HTTP/1.1 server on 127.0.0.1 and an ephemeral port that misbehaves on demand, for
/// testing clients against every failure a transcription backend can produce.
///
/// For each request it reads the head, asks `script` how to answer (by request index and head),
/// then answers, hangs, stalls mid-upload, resets the connection, or sends garbage. It records
/// every request it saw (head, body, multipart fields) and counts them. Each connection runs on
/// its own thread; every answer closes the connection.
public final class FaultServer: @unchecked Sendable {
    // @unchecked: the listening socket is immutable after init; everything else is behind `state`.
    public typealias Script = @Sendable (_ index: Int, _ head: RequestHead) -> Reply

    public let port: Int
    private let listener: Int32
    private let script: Script
    private let state = Mutex(State())

    private struct State {
        var stopped = false
        var heads = 0
        var requests: [RecordedRequest] = []
        var openConnections = 0
        var mostOpenConnections = 0
        var connectionThreads = 0
    }

    /// Starts a server that answers by `script`.
    public init(script: @escaping Script) throws {
        self.script = script
        // Close-on-exec, as every socket here: the processes other tests start must not hold
        // this server's connections open after it closed them.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw FaultServerError.socket("socket", errno) }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        // A small receive buffer, inherited by accepted sockets, makes "stop reading the body"
        // push back on the client quickly instead of after megabytes of buffering.
        var receiveBuffer: Int32 = 16 * 1024
        setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            let code = errno
            close(listener)
            throw FaultServerError.socket("bind/listen", code)
        }
        self.listener = listener
        port = Self.localPort(of: listener)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "fault-server.accept"
        thread.start()
    }

    /// Starts a server that gives the scripted replies in order, then `then` for every later request.
    public convenience init(replies: [Reply], then fallback: Reply = .json(200, FaultServer.minimalTranscription)) throws {
        try self.init { index, _ in index < replies.count ? replies[index] : fallback }
    }

    deinit {
        stop()
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Requests whose head arrived, answered or not.
    public var requestCount: Int { state.withLock { $0.heads } }

    /// Requests read in full (those stalled or hung before their body are not here).
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// Connections open now; a client that gave up has closed its own.
    public var openConnections: Int { state.withLock { $0.openConnections } }

    /// The largest number of connections open at once.
    public var mostOpenConnections: Int { state.withLock { $0.mostOpenConnections } }

    /// Stops accepting; hanging and stalled connections end within a few milliseconds.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard wasRunning else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    // MARK: Connections

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            state.withLock {
                $0.openConnections += 1
                $0.mostOpenConnections = max($0.mostOpenConnections, $0.openConnections)
            }
            let thread = Thread { [self] in
                serve(connection)
                state.withLock { $0.openConnections -= 1 }
            }
            thread.name = "fault-server.connection"
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        var closed = false
        defer { if !closed { close(connection) } }
        var buffer: [UInt8] = []
        guard read(connection, into: &buffer, limit: 64 * 1024) > 0 else { return }
        if buffer.first == 0x16 {
            // A TLS ClientHello on this plain-HTTP port: answer as plain HTTP servers do, which
            // the client's TLS layer reads as a failed handshake.
            state.withLock { $0.heads += 1 }
            send(connection, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        guard let headEnd = readUntilHeadEnd(connection, into: &buffer),
              let head = RequestHead(bytes: Array(buffer[..<headEnd]))
        else { return }
        var body = Array(buffer[(headEnd + 4)...])
        let index = state.withLock { state -> Int in
            defer { state.heads += 1 }
            return state.heads
        }
        let reply = script(index, head)

        if case .stallUpload(let afterBytes) = reply {
            // Read a little of the body, then nothing more: the client's upload stops moving.
            while body.count < min(afterBytes, head.contentLength) {
                guard read(connection, into: &body, limit: afterBytes - body.count) > 0 else { return }
            }
            waitForClientToLeave(connection)
            return
        }
        while body.count < head.contentLength {
            guard read(connection, into: &body, limit: head.contentLength - body.count) > 0 else { return }
        }
        let request = RecordedRequest(head: head, body: body)
        state.withLock { $0.requests.append(request) }

        switch reply {
        case .respond(let status, let headers, let replyBody, let delay):
            if delay > .zero { Thread.sleep(forTimeInterval: delay.seconds) }
            send(connection, Self.responseHead(status: status, headers: headers, contentLength: replyBody.count) + replyBody)
        case .echo(let status, let delay, let answer):
            if delay > .zero { Thread.sleep(forTimeInterval: delay.seconds) }
            let (headers, text) = answer(request)
            let replyBody = Array(text.utf8)
            send(connection, Self.responseHead(status: status, headers: headers, contentLength: replyBody.count) + replyBody)
        case .hang:
            waitForClientToLeave(connection)
        case .reset:
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(connection)
            closed = true
        case .truncated(let status, let replyBody, let declaredLength):
            send(connection, Self.responseHead(status: status, headers: [], contentLength: declaredLength) + replyBody)
        case .garbage:
            send(connection, Array("\u{16}\u{3}\u{1}SSH-2.0-not-http\r\n\0\0garbage".utf8))
        case .stallUpload:
            break
        }
    }

    private func readUntilHeadEnd(_ connection: Int32, into buffer: inout [UInt8]) -> Int? {
        let marker: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4) where buffer[index..<(index + 4)].elementsEqual(marker) {
                    return index
                }
            }
            guard buffer.count < 1 << 20, read(connection, into: &buffer, limit: 64 * 1024) > 0 else { return nil }
        }
    }

    /// Reads what is available, waiting at most 50 ms at a time so that `stop()` is noticed.
    private func read(_ connection: Int32, into buffer: inout [UInt8], limit: Int) -> Int {
        while !isStopped {
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            if ready < 0 && errno != EINTR { return -1 }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: max(1, min(limit, 64 * 1024)))
            let count = recv(connection, &chunk, chunk.count, 0)
            if count > 0 { buffer += chunk[..<count] }
            return count
        }
        return -1
    }

    /// Holds the connection open, reading nothing, until the client closes it or the server stops.
    private func waitForClientToLeave(_ connection: Int32) {
        while !isStopped {
            var descriptor = pollfd(fd: connection, events: pollReadHangUp, revents: 0)
            if poll(&descriptor, 1, 20) > 0,
               descriptor.revents & (pollReadHangUp | Int16(POLLHUP | POLLERR)) != 0 {
                return
            }
        }
    }

    private func send(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
        shutdown(connection, Int32(SHUT_WR))
    }

    private static func responseHead(status: Int, headers: [(String, String)], contentLength: Int) -> [UInt8] {
        var lines = ["HTTP/1.1 \(status) \(reasonPhrase(status))"]
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            lines.append("Content-Type: application/json")
        }
        lines += headers.map { "\($0.0): \($0.1)" }
        lines.append("Content-Length: \(contentLength)")
        lines.append("Connection: close")
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    private static func reasonPhrase(_ status: Int) -> String {
        [200: "OK", 301: "Moved Permanently", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
         408: "Request Timeout", 409: "Conflict", 413: "Content Too Large", 415: "Unsupported Media Type",
         422: "Unprocessable Content", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
         503: "Service Unavailable", 504: "Gateway Timeout"][status] ?? "Status"
    }

    private static func localPort(of socket: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A local port on which nothing listens: connecting to it is refused at once.
    public static func closedPort() throws -> Int {
        // The socket stays bound, never listening, for the rest of the process: a connection to
        // its port is refused, and no other server can be given the port meanwhile. (Closing it
        // let another test's FaultServer take the port, and a "refused" request reached that
        // server: CI saw both tests fail at once.) Bound without SO_REUSEADDR, nothing can share it.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw FaultServerError.socket("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(probe)
            throw FaultServerError.socket("bind", errno)
        }
        heldClosedPorts.withLock { $0.append(probe) }
        return localPort(of: probe)
    }
}

/// The sockets that keep `closedPort()`'s ports taken.
private let heldClosedPorts = Mutex<[Int32]>([])

/// Linux's POLLRDHUP (the peer closed its end), which Glibc's Swift import leaves out.
private let pollReadHangUp: Int16 = 0x2000

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
