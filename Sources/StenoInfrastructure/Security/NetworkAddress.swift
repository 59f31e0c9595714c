/// An IP address as the resolver returned it, and the kinds of address that URLs from API
/// clients must not reach (server-side request forgery).
public enum NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt8, UInt8, UInt8, UInt8)
    /// Sixteen bytes, network order.
    case v6([UInt8])

    /// Why an address is not public; nil for a public one.
    public enum Restriction: String, Sendable, Equatable {
        case loopback
        case privateNetwork = "private network"
        case linkLocal = "link-local"
        case cloudMetadata = "cloud metadata service"
        case unspecified
        case multicast
        case reserved
        case sharedAddressSpace = "carrier-grade NAT"
    }

    public var restriction: Restriction? {
        switch self {
        case let .v4(a, b, c, d):
            return Self.restriction(v4: (a, b, c, d))
        case let .v6(bytes):
            guard bytes.count == 16 else { return .reserved }
            // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses reach the
            // IPv4 address inside.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return Self.restriction(v4: (bytes[12], bytes[13], bytes[14], bytes[15]))
            }
            if bytes[0..<12].allSatisfy({ $0 == 0 }) {
                if bytes[12..<15].allSatisfy({ $0 == 0 }) {
                    if bytes[15] == 1 { return .loopback }
                    if bytes[15] == 0 { return .unspecified }
                }
                return Self.restriction(v4: (bytes[12], bytes[13], bytes[14], bytes[15]))
            }
            // NAT64 (64:ff9b::/96) reaches the IPv4 address in its last four bytes.
            if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B, bytes[4..<12].allSatisfy({ $0 == 0 }) {
                return Self.restriction(v4: (bytes[12], bytes[13], bytes[14], bytes[15]))
            }
            // AWS's IPv6 metadata address fd00:ec2::254.
            if bytes == [0xFD, 0, 0x0E, 0xC2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54] { return .cloudMetadata }
            if bytes[0] & 0xFE == 0xFC { return .privateNetwork }  // fc00::/7 unique local
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return .privateNetwork }  // fec0::/10 site-local
            if bytes[0] == 0xFF { return .multicast }
            // 2001:db8::/32 documentation, 100::/64 discard.
            if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return .reserved }
            if bytes[0] == 0x01, bytes[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }
            return nil
        }
    }

    private static func restriction(v4 address: (UInt8, UInt8, UInt8, UInt8)) -> Restriction? {
        let (a, b, c, _) = address
        switch a {
        case 0: return .unspecified
        case 10: return .privateNetwork
        case 127: return .loopback
        case 100 where b & 0xC0 == 64: return .sharedAddressSpace  // 100.64.0.0/10
        case 169 where b == 254:
            return address == (169, 254, 169, 254) ? .cloudMetadata : .linkLocal
        case 172 where b & 0xF0 == 16: return .privateNetwork  // 172.16.0.0/12
        case 192 where b == 168: return .privateNetwork
        case 192 where b == 0 && c == 0: return .reserved  // 192.0.0.0/24, IETF protocol assignments
        case 192 where b == 0 && c == 2, 198 where b == 51 && c == 100, 203 where b == 0 && c == 113: return .reserved
        case 198 where b & 0xFE == 18: return .reserved  // 198.18.0.0/15 benchmarking
        case 224...239: return .multicast
        case 240...255: return .reserved
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case let .v4(a, b, c, d): return "\(a).\(b).\(c).\(d)"
        case let .v6(bytes):
            guard bytes.count == 16 else { return "invalid IPv6 address" }
            let groups = stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            return groups.joined(separator: ":")
        }
    }
}
