#if canImport(Glibc)
import Glibc
#endif
import NIOPosix
import StenoCore
import StenoInfrastructure
import HTTPTypes

/// Checks a URL an API client sent (a media source or a webhook) against the outbound policy:
/// http(s) only, and every address its host resolves to must be public unless the operator
/// allowed the host. The resolver blocks, so it runs on NIO's thread pool.
struct OutboundURLCheck: Sendable {
    let policy: OutboundURLPolicy

    func check(_ text: String, field: String) async throws {
        guard let url = WebURL(text) else {
            throw APIError.badRequest("\(field) must be an absolute http(s) URL with a host", field: field)
        }
        let host = url.resolvableHost
        if policy.allowedHosts.contains(host) { return }
        let addresses: [NetworkAddress]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive { try Self.resolve(host) }
        } catch let error as ResolutionFailure {
            throw APIError.badRequest("\(field): the host \(host) cannot be resolved (\(error.message))", field: field)
        }
        if let refusal = policy.refusal(host: host, addresses: addresses) {
            throw APIError(.badRequest, code: "url_not_allowed", "\(field): \(refusal)", field: field)
        }
    }

    struct ResolutionFailure: Error {
        var message: String
    }

    /// Every address `host` resolves to (numeric forms included, as a connection would read them).
    static func resolve(_ host: String) throws -> [NetworkAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw ResolutionFailure(message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [NetworkAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        let raw = UInt32(bigEndian: pointer.pointee.sin_addr.s_addr)
                        addresses.append(.v4(UInt8(raw >> 24), UInt8(raw >> 16 & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw & 0xFF)))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        let bytes = withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                        addresses.append(.v6(bytes))
                    }
                default:
                    break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
