import Foundation
import StenoObjectStore
import Testing

@Suite("ObjectStoreConfiguration")
struct ObjectStoreConfigurationTests {
    static let configuration = ObjectStoreConfiguration(
        endpoint: URLComponents(string: "http://127.0.0.1:8333")!, region: "us-east-1", bucket: "steno-media",
        credentials: ObjectStoreCredentials(accessKeyID: "steno", secretAccessKey: "not-a-secret", source: "the test"))

    @Test("parts are 8 MiB, and larger only where a file would need more than S3's 10,000 parts")
    func partSizeKeepsWithinTenThousandParts() {
        let configuration = Self.configuration
        #expect(configuration.partSize(forFileOf: 2_150_400_078) == 8 << 20, "a 2 GB upload: 257 parts of 8 MiB")
        #expect(configuration.partSize(forFileOf: Int64(8 << 20) * 10_000) == 8 << 20)
        let huge: Int64 = 200 << 30
        let part = configuration.partSize(forFileOf: huge)
        #expect(part > 8 << 20)
        #expect((huge + Int64(part) - 1) / Int64(part) <= 10_000, "200 GiB in parts of \(part) bytes")
    }
}
