import CCurl
import StenoCore
public import StenoInfrastructure
import Synchronization

/// Refuses connections to addresses that URLs from API clients may not reach, at the moment
/// curl connects: after name resolution (so a name that resolves to 127.0.0.1 is refused as
/// 127.0.0.1 is, and a name that changes its answer between a check and the fetch gains
/// nothing) and for every connection a transfer opens, redirects included. A host the operator
/// allowed (`OutboundURLPolicy.allowedHosts`) is read from the URL being fetched at that moment.
public final class ConnectionGuard: Sendable {
    public let policy: OutboundURLPolicy
    private let refusal = Mutex<OutboundURLPolicy.Refusal?>(nil)

    public init(policy: OutboundURLPolicy) {
        self.policy = policy
    }

    /// The connection refused last, for the error the caller reports.
    public var lastRefusal: OutboundURLPolicy.Refusal? { refusal.withLock { $0 } }

    /// Whether a connection to `address` for a URL of `host` may be opened.
    func permits(_ address: NetworkAddress, host: String) -> Bool {
        guard let refused = policy.refusal(host: host, addresses: [address]) else { return true }
        refusal.withLock { $0 = refused }
        return false
    }
}

/// curl's `CURLOPT_OPENSOCKETFUNCTION`; `clientp` is the transfer.
let curlOpenSocket: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
    context, _, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    if let connectionGuard = transfer.connectionGuard {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = Int(steno_curl_sockaddr_bytes(address, &bytes))
        let network: NetworkAddress
        switch count {
        case 4: network = .v4(bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: network = .v6(bytes)
        default: return CURL_SOCKET_BAD
        }
        let host = transfer.easy.effectiveURL.flatMap { WebURL($0)?.resolvableHost } ?? ""
        guard connectionGuard.permits(network, host: host) else { return CURL_SOCKET_BAD }
    }
    return steno_curl_open_socket(address)
}
