import StenoCore
import StenoInfrastructure
import Testing

@Suite("outbound URLs: which addresses client URLs may reach")
struct OutboundURLPolicyTests {
    @Test("addresses that are not public are named by kind", arguments: [
        (NetworkAddress.v4(127, 0, 0, 1), NetworkAddress.Restriction.loopback),
        (.v4(127, 255, 0, 9), .loopback),
        (.v4(10, 0, 0, 1), .privateNetwork),
        (.v4(172, 16, 0, 1), .privateNetwork),
        (.v4(172, 31, 255, 255), .privateNetwork),
        (.v4(192, 168, 1, 1), .privateNetwork),
        (.v4(169, 254, 169, 254), .cloudMetadata),
        (.v4(169, 254, 1, 1), .linkLocal),
        (.v4(100, 64, 0, 1), .sharedAddressSpace),
        (.v4(0, 0, 0, 0), .unspecified),
        (.v4(224, 0, 0, 1), .multicast),
        (.v4(255, 255, 255, 255), .reserved),
        (.v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), .loopback),
        (.v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1]), .loopback),
        (.v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 169, 254, 169, 254]), .cloudMetadata),
        (.v6([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1]), .privateNetwork),
        (.v6([0xFD, 0, 0x0E, 0xC2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54]), .cloudMetadata),
        (.v6([0xFD, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), .privateNetwork),
        (.v6([0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), .linkLocal),
        (.v6([0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), .multicast),
    ])
    func restricted(_ address: NetworkAddress, _ kind: NetworkAddress.Restriction) {
        #expect(address.restriction == kind)
    }

    @Test("public addresses pass", arguments: [
        NetworkAddress.v4(93, 184, 216, 34), .v4(8, 8, 8, 8), .v4(172, 32, 0, 1), .v4(100, 128, 0, 1),
        .v6([0x26, 0x06, 0x28, 0x00, 0x02, 0x20, 0, 1, 0x02, 0x48, 0x18, 0x93, 0x25, 0xC8, 0x19, 0x46]),
    ])
    func publicAddresses(_ address: NetworkAddress) {
        #expect(address.restriction == nil)
    }

    @Test("a host is refused when any of its addresses is private, unless the operator allowed it")
    func anyAddressCounts() {
        let policy = OutboundURLPolicy(parsingAllowedHosts: "media.internal, Minio")
        #expect(policy.refusal(host: "cdn.example", addresses: [.v4(93, 184, 216, 34), .v4(10, 0, 0, 5)])?.restriction == .privateNetwork)
        #expect(policy.refusal(host: "cdn.example", addresses: [.v4(93, 184, 216, 34)]) == nil)
        #expect(policy.refusal(host: "media.internal", addresses: [.v4(10, 0, 0, 5)]) == nil)
        #expect(policy.refusal(host: "minio", addresses: [.v4(127, 0, 0, 1)]) == nil)
        #expect(policy.refusal(host: "other.internal", addresses: [.v4(10, 0, 0, 5)]) != nil)
    }

    @Test("URLs are split into scheme, host and port, and malformed ones refused")
    func webURLs() {
        #expect(WebURL("https://user:pw@Example.COM:8443/a?b#c").map { [$0.scheme, $0.host, String($0.port)] } == ["https", "example.com", "8443"])
        #expect(WebURL("http://[::1]:80/x")?.resolvableHost == "::1")
        #expect(WebURL("http://example.com")?.port == 80)
        for bad in ["ftp://example.com/", "http:/example.com", "http://", "http://exa mple.com/", "http://example.com:99999/", "https://a\u{0}b/", "file:///etc/passwd"] {
            #expect(WebURL(bad) == nil, "\(bad)")
        }
    }
}
