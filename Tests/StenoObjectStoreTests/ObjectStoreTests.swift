import Foundation
import Logging
import StenoCore
import StenoMedia
import StenoTestSupport
import StenoTranscription
import Testing

@testable import StenoObjectStore

/// The store client against a real S3 server (SeaweedFS, which checks signatures).
@Suite("ObjectStore against SeaweedFS", .enabled(if: RunningObjectStore.isAvailable, "SeaweedFS is not set up: run scripts/seaweedfs"),
    .timeLimit(.minutes(5)))
struct ObjectStoreTests {
    static func client(_ server: RunningObjectStore, secret: String? = nil, bucket: String? = nil, partSize: Int = 5 << 20) throws -> ObjectStore {
        var environment = server.environment
        if let secret { environment["STENO_S3_SECRET_ACCESS_KEY"] = secret }
        if let bucket { environment["STENO_S3_BUCKET"] = bucket }
        var configuration = try #require(try ObjectStoreConfiguration.fromEnvironment(environment))
        configuration.partSize = partSize
        configuration.attempts = 3
        return ObjectStore(configuration, clock: InstantClock())
    }

    static func temporaryFile(bytes count: Int) throws -> (path: String, bytes: [UInt8]) {
        var state: UInt64 = 0x9E37_79B9
        let bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-s3-\(UUID().uuidString).bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test("a file larger than a part goes up in parts; its size and SHA-256 are the file's, and a signed link reads any byte range of it")
    func multipartUploadAndRangedRead() async throws {
        let server = try await RunningObjectStore.start()
        let store = try Self.client(server)
        let (path, bytes) = try Self.temporaryFile(bytes: (12 << 20) + 12_345)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stored = try await store.upload(fileAt: path, as: "media/big.bin")
        #expect(stored.size == Int64(bytes.count))
        let expectedHash = SigV4Signer.payloadHash(bytes)
        #expect(stored.sha256 == expectedHash)
        let head = try #require(try await store.head("media/big.bin"))
        #expect(head.size == Int64(bytes.count))
        // The etag of a multipart object says how many parts made it.
        #expect(head.etag?.contains("-3") == true, "\(head.etag ?? "no etag")")

        let link = store.readLink("media/big.bin", lifetime: .seconds(300))
        let range = 7_000_000...7_000_099
        let part = try await ChildProcess.run("/usr/bin/curl", ["-s", "-r", "\(range.lowerBound)-\(range.upperBound)", "-o", path + ".part", link])
        #expect(part.status == 0)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path + ".part"))) == Array(bytes[range]))
        try? FileManager.default.removeItem(atPath: path + ".part")
        // A link whose signature was changed reads nothing.
        let forged = link.replacingOccurrences(of: "X-Amz-Signature=", with: "X-Amz-Signature=0")
        let refused = try await ChildProcess.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", forged])
        #expect(refused.standardOutput == "403")

        try await store.delete("media/big.bin")
        #expect(try await store.head("media/big.bin") == nil)
        try await store.delete("media/big.bin")
    }

    @Test("a small file is one PUT, and reads back byte for byte")
    func smallUpload() async throws {
        let server = try await RunningObjectStore.start()
        let store = try Self.client(server)
        let (path, bytes) = try Self.temporaryFile(bytes: 1000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stored = try await store.upload(fileAt: path, as: "media/small bin+1.bin")
        #expect(stored.size == 1000)
        let read = try await server.curl(["\(server.endpoint)/\(server.bucket)/media/small%20bin%2B1.bin"])
        #expect(read.status == 200 && read.body == bytes)
        #expect(try await store.head("media/small bin+1.bin")?.size == Int64(bytes.count))
    }

    @Test("a wrong secret is one clear error naming the settings, without the secret")
    func wrongSecret() async throws {
        let server = try await RunningObjectStore.start()
        let wrong = TestSecret.make("wrong")
        let store = try Self.client(server, secret: wrong)
        let error = await #expect(throws: ObjectStoreError.self) { try await store.checkAccess() }
        #expect(error?.code == .credentials)
        #expect(error?.isConfiguration == true && error?.isTransient == false)
        #expect(error?.description.contains("STENO_S3_SECRET_ACCESS_KEY") == true)
        #expect(error?.description.contains(wrong) == false && error?.description.contains(server.secretKey) == false)
        let (path, _) = try Self.temporaryFile(bytes: 100)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let upload = await #expect(throws: ObjectStoreError.self) { try await store.upload(fileAt: path, as: "x") }
        #expect(upload?.code == .credentials)
    }

    @Test("a bucket that does not exist is named as such")
    func missingBucket() async throws {
        let server = try await RunningObjectStore.start()
        let store = try Self.client(server, bucket: "no-such-bucket")
        let error = await #expect(throws: ObjectStoreError.self) { try await store.checkAccess() }
        #expect(error?.code == .noSuchBucket)
        #expect(error?.description.contains("STENO_S3_BUCKET") == true)
        try await Self.client(server).checkAccess()
    }

    @Test("the server killed mid-upload: the upload fails as unavailable after its tries, and succeeds once the server is back; the parts it left are aborted as abandoned")
    func serverKilledMidUpload() async throws {
        let server = try await RunningObjectStore.start()
        let store = try Self.client(server)
        let (path, bytes) = try Self.temporaryFile(bytes: 11 << 20)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A multipart upload begun and left, as a process killed between parts leaves one.
        let begun = try await store.send(.post, key: "media/left.bin", query: [URLQueryItem(name: "uploads", value: "")])
        let uploadID = try #require(S3XML(begun.body)?.first("UploadId"))
        _ = try await store.send(
            .put, key: "media/left.bin", query: [URLQueryItem(name: "partNumber", value: "1"), URLQueryItem(name: "uploadId", value: uploadID)],
            body: Array(bytes.prefix(5 << 20)))

        try await server.kill()
        let error = await #expect(throws: ObjectStoreError.self) { try await store.upload(fileAt: path, as: "media/whole.bin") }
        #expect(error?.code == .unavailable && error?.isTransient == true)
        try await server.restart()
        let stored = try await store.upload(fileAt: path, as: "media/whole.bin")
        #expect(stored.size == Int64(bytes.count))

        #expect(try await store.abortAbandonedUploads(now: Date()) == 0, "a fresh upload is not abandoned")
        #expect(try await store.abortAbandonedUploads(now: Date().addingTimeInterval(2 * 86_400)) >= 1)
        #expect(try await store.abortAbandonedUploads(now: Date().addingTimeInterval(2 * 86_400)) == 0)
    }

    @Test("an m4b with chapters in the store probes and decodes through a signed link as it does on disk")
    func m4bThroughTheStore() async throws {
        let server = try await RunningObjectStore.start()
        let store = try Self.client(server)
        let path = FixtureBook.file("book.m4b").path
        _ = try await store.upload(fileAt: path, as: "media/book.m4b")
        let sources = MediaSources(store: store)
        let location = try sources.location(of: "s3://\(server.bucket)/media/book.m4b")
        #expect(!"\(location)".contains("X-Amz-Signature"), "a location prints without its signature")
        let remote = MediaFile(location)
        let local = MediaFile(.file(path: path))
        let remoteInfo = try await remote.probe()
        let localInfo = try await local.probe()
        #expect(remoteInfo.duration == localInfo.duration)
        #expect(remoteInfo.chapters.map(\.title) == localInfo.chapters.map(\.title))
        #expect(remoteInfo.chapters.count >= 2)
        let range = MediaTime(seconds: 10)..<MediaTime(seconds: 14)
        let remoteSamples = try await remote.decode(range)
        let localSamples = try await local.decode(range)
        #expect(remoteSamples == localSamples)
        await remote.close()
        await local.close()

        #expect(throws: ObjectStoreError.self) { try sources.location(of: "s3://another-bucket/media/book.m4b") }
        #expect(throws: ObjectStoreError.self) { try MediaSources(store: nil).location(of: "s3://\(server.bucket)/media/book.m4b") }
        #expect(try sources.location(of: "/srv/media/a.mp3") == .file(path: "/srv/media/a.mp3"))
    }
}
