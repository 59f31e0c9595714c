import Crypto
public import Foundation

/// AWS Signature Version 4 for S3, as AWS specifies it: the canonical request, the string to
/// sign, the signing key derived from the secret for a day, region and service. Pure: the time
/// is given, nothing is sent. Used for every request to the store (the `Authorization` header)
/// and for presigned URLs (the same signature in the query, `UNSIGNED-PAYLOAD`).
public struct SigV4Signer: Sendable {
    public var credentials: ObjectStoreCredentials
    public var region: String
    public var service = "s3"

    public init(credentials: ObjectStoreCredentials, region: String) {
        self.credentials = credentials
        self.region = region
    }

    /// The hash S3 takes for a payload it is not told the hash of.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The SHA-256 of nothing: a GET's, HEAD's or DELETE's payload.
    public static let emptyPayloadHash = hex(SHA256.hash(data: [UInt8]()))

    /// The header lines that sign a request: `Authorization`, `x-amz-date` and
    /// `x-amz-content-sha256`. `headers` are the request's other headers to sign (`host` is
    /// added from the URL); `payloadHash` is the body's SHA-256 in hex, or `unsignedPayload`.
    public func signedHeaders(
        method: String, url: URLComponents, headers: [String: String] = [:], payloadHash: String, date: Date
    ) -> [String: String] {
        let stamp = Self.stamp(date)
        var signed = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value.trimmingCharacters(in: .whitespaces)) })
        signed["host"] = Self.host(of: url)
        signed["x-amz-date"] = stamp.time
        signed["x-amz-content-sha256"] = payloadHash
        let names = signed.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(signed[$0]!)\n" }.joined()
        let signedNames = names.joined(separator: ";")
        let canonical = [
            method, Self.canonicalPath(url.percentEncodedPath), Self.canonicalQuery(url.queryItems ?? []), canonicalHeaders, signedNames, payloadHash,
        ].joined(separator: "\n")
        let signature = sign(canonical, stamp: stamp)
        var result = signed
        result.removeValue(forKey: "host")
        result["authorization"] =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(stamp)), SignedHeaders=\(signedNames), Signature=\(signature)"
        return result
    }

    /// A URL anyone holding it may use for `method` until `expires` after `date`: the signature
    /// rides in the query. Only `host` is signed, so the holder may add a `Range` header.
    public func presigned(method: String, url: URLComponents, expires: Duration, date: Date) -> URL? {
        let stamp = Self.stamp(date)
        var components = url
        var items = url.queryItems ?? []
        items += [
            URLQueryItem(name: "X-Amz-Algorithm", value: "AWS4-HMAC-SHA256"),
            URLQueryItem(name: "X-Amz-Credential", value: "\(credentials.accessKeyID)/\(scope(stamp))"),
            URLQueryItem(name: "X-Amz-Date", value: stamp.time),
            URLQueryItem(name: "X-Amz-Expires", value: String(Int(expires.components.seconds))),
            URLQueryItem(name: "X-Amz-SignedHeaders", value: "host"),
        ]
        let canonical = [
            method, Self.canonicalPath(url.percentEncodedPath), Self.canonicalQuery(items), "host:\(Self.host(of: url))\n", "host",
            Self.unsignedPayload,
        ].joined(separator: "\n")
        items.append(URLQueryItem(name: "X-Amz-Signature", value: sign(canonical, stamp: stamp)))
        components.percentEncodedQuery = Self.canonicalQuery(items)
        return components.url
    }

    struct Stamp {
        var day: String
        var time: String
    }

    static func stamp(_ date: Date) -> Stamp {
        // Foundation's ISO 8601 style in UTC, without separators: 20130524T000000Z.
        let time = date.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, timeSeparator: .omitted, timeZone: .gmt))
        return Stamp(day: String(time.prefix(8)), time: time)
    }

    private func scope(_ stamp: Stamp) -> String {
        "\(stamp.day)/\(region)/\(service)/aws4_request"
    }

    private func sign(_ canonicalRequest: String, stamp: Stamp) -> String {
        let stringToSign = [
            "AWS4-HMAC-SHA256", stamp.time, scope(stamp), Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey.value).utf8))
        for part in [stamp.day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
    }

    /// The payload hash S3 checks a body against.
    public static func payloadHash(_ body: [UInt8]) -> String {
        hex(SHA256.hash(data: body))
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// `host` or `host:port` when the port is not the scheme's own.
    static func host(of url: URLComponents) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        let standard = url.scheme?.lowercased() == "https" ? 443 : 80
        return port == standard ? host : "\(host):\(port)"
    }

    /// S3's canonical path: each segment percent-encoded once, with only A-Z a-z 0-9 - . _ ~
    /// left as they are (and the slashes between segments).
    static func canonicalPath(_ percentEncodedPath: String) -> String {
        let path = percentEncodedPath.isEmpty ? "/" : percentEncodedPath
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { uriEncode(String($0).removingPercentEncoding ?? String($0)) }
            .joined(separator: "/")
    }

    static func canonicalQuery(_ items: [URLQueryItem]) -> String {
        let pairs: [(name: String, value: String)] = items.map { item in (uriEncode(item.name), uriEncode(item.value ?? "")) }
        let sorted = pairs.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        return sorted.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    private static let unreserved: Set<UInt8> = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))
    private static let hexDigits = Array("0123456789ABCDEF")

    /// Percent-encoding as SigV4 defines it: every byte but A-Z a-z 0-9 - . _ ~, upper-case hex.
    public static func uriEncode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                encoded += "%" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 15)])
            }
        }
        return encoded
    }
}
