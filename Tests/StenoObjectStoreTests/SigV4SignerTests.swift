import Foundation
import Testing

@testable import StenoObjectStore

/// The signatures of AWS's own worked examples ("Signature Calculations for the Authorization
/// Header" and "Query String Authentication" in the S3 API reference): an error in the
/// canonical request, the key derivation or the encoding changes every hex digit.
@Suite("SigV4Signer")
struct SigV4SignerTests {
    static let signer = SigV4Signer(
        credentials: ObjectStoreCredentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", source: "AWS's documentation"),
        region: "us-east-1")
    /// 2013-05-24T00:00:00Z.
    static let date = Date(timeIntervalSince1970: 1_369_353_600)

    static func signature(_ headers: [String: String]) -> String? {
        headers["authorization"]?.components(separatedBy: "Signature=").last
    }

    @Test("a ranged GET signs as AWS's example does")
    func getObject() throws {
        let url = try #require(URLComponents(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let headers = Self.signer.signedHeaders(method: "GET", url: url, headers: ["Range": "bytes=0-9"], payloadHash: SigV4Signer.emptyPayloadHash, date: Self.date)
        #expect(Self.signature(headers) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers["authorization"]?.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date") == true)
        #expect(headers["x-amz-date"] == "20130524T000000Z")
    }

    @Test("a PUT with a key that needs encoding and extra signed headers signs as AWS's example does")
    func putObject() throws {
        let url = try #require(URLComponents(string: "https://examplebucket.s3.amazonaws.com/test$file.text"))
        let body = Array("Welcome to Amazon S3.".utf8)
        #expect(SigV4Signer.payloadHash(body) == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let headers = Self.signer.signedHeaders(
            method: "PUT", url: url, headers: ["Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"],
            payloadHash: SigV4Signer.payloadHash(body), date: Self.date)
        #expect(Self.signature(headers) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test("a listing's query is sorted and encoded as AWS's example does")
    func listObjects() throws {
        let url = try #require(URLComponents(string: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J"))
        let headers = Self.signer.signedHeaders(method: "GET", url: url, payloadHash: SigV4Signer.emptyPayloadHash, date: Self.date)
        #expect(Self.signature(headers) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test("a presigned GET carries AWS's example signature in its query, and never the secret")
    func presignedGet() throws {
        let url = try #require(URLComponents(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let link = try #require(Self.signer.presigned(method: "GET", url: url, expires: .seconds(86_400), date: Self.date))
        #expect(link.absoluteString.contains("&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"))
        #expect(link.absoluteString.contains("X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"))
        #expect(!link.absoluteString.contains("wJalrXUtnFEMI"))
    }

    @Test("the date stamp is UTC whatever the time of day and year", arguments: [
        (0.0, "19700101T000000Z"), (951_782_400.0, "20000229T000000Z"), (1_767_225_599.0, "20251231T235959Z"), (4_107_542_400.0, "21000301T000000Z"),
    ])
    func stamps(seconds: Double, expected: String) {
        #expect(SigV4Signer.stamp(Date(timeIntervalSince1970: seconds)).time == expected)
    }

    @Test("credentials print without their secret")
    func credentialsRedacted() {
        let credentials = Self.signer.credentials
        for text in ["\(credentials)", String(reflecting: credentials), "\(Mirror(reflecting: credentials).children.map(\.value))"] {
            #expect(!text.contains("wJalrXUtnFEMI"), "\(text)")
        }
    }
}
