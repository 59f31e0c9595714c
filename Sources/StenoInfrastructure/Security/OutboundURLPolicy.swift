/// Which hosts URLs from API clients (media sources, webhooks) may reach: public addresses
/// only, unless the operator allows a host by name (`STENO_API_ALLOWED_HOSTS`). Checked on
/// the addresses a name resolves to, not on the name, so that a name pointing at 127.0.0.1 is
/// refused as 127.0.0.1 would be; and again on each connection a fetch opens (a redirect).
public struct OutboundURLPolicy: Sendable, Equatable {
    /// Lowercased host names (or literal addresses as written in URLs) that may be private.
    public var allowedHosts: Set<String>

    public init(allowedHosts: some Sequence<String> = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() }.filter { !$0.isEmpty })
    }

    /// Reads a comma- or space-separated list of host names.
    public init(parsingAllowedHosts list: String) {
        self.init(allowedHosts: list.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init))
    }

    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var address: NetworkAddress
        public var restriction: NetworkAddress.Restriction

        public var description: String {
            "\(host) resolves to \(address), a \(restriction.rawValue) address; URLs from API clients may reach public addresses only "
                + "(the operator can allow this host with STENO_API_ALLOWED_HOSTS)"
        }
    }

    /// The first address of `host` that may not be reached, or nil when all may.
    /// Every address counts: a client could otherwise rely on the connection trying a second one.
    public func refusal(host: String, addresses: [NetworkAddress]) -> Refusal? {
        let name = host.lowercased().trimmingCharacters(inBrackets: true)
        if allowedHosts.contains(name) || allowedHosts.contains(host.lowercased()) { return nil }
        for address in addresses {
            if let restriction = address.restriction { return Refusal(host: host, address: address, restriction: restriction) }
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(inBrackets: Bool) -> String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}
