import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A socket on 127.0.0.1 that listens but never accepts, with its backlog already full: the
/// kernel drops further SYNs, so a client's connect neither succeeds nor is refused, and only
/// its connect timeout ends it.
public final class UnacceptingListener: @unchecked Sendable {
    // @unchecked: immutable after init.
    public let port: Int
    private let listener: Int32
    private let fillers: [Int32]

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw FaultServerError.socket("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 0) == 0 else {
            close(listener)
            throw FaultServerError.socket("bind/listen", errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue with non-blocking connects that are never accepted.
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var target = address
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(filler)
        }
        self.fillers = fillers
        // The first connect fills the queue (a backlog of 0 holds one) once its socket is
        // writable; the others' SYNs are dropped like any later client's, and are never waited
        // for (each would wait out the poll's limit).
        var ready = pollfd(fd: fillers[0], events: Int16(POLLOUT), revents: 0)
        _ = Glibc.poll(&ready, 1, 5_000)
    }

    deinit {
        fillers.forEach { close($0) }
        close(listener)
    }
}
