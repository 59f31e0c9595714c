import Foundation
import StenoAPI
import StenoCore
import StenoObjectStore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// steno-api with its media in an S3 store (SeaweedFS): nothing is left in its upload
/// directory, the workers' source is the object, and deleting and playing go through the store.
@Suite("steno-api with an object store", .enabled(if: RunningObjectStore.isAvailable, "SeaweedFS is not set up: run scripts/seaweedfs"),
    .timeLimit(.minutes(5)))
struct APIObjectStoreTests {
    static func objects(_ server: RunningObjectStore) throws -> ObjectStore {
        ObjectStore(try #require(try ObjectStoreConfiguration.fromEnvironment(server.environment)))
    }

    static func storedKeys(_ server: RunningObjectStore) async throws -> [String] {
        // No "/" in the query: curl 7.88's SigV4 signs it unencoded, which S3 refuses.
        let listing = try await server.curl(["\(server.endpoint)/\(server.bucket)?list-type=2&prefix=uploads"])
        let text = String(decoding: listing.body, as: UTF8.self)
        #expect(listing.status == 200, "\(text)")
        return text.matches(of: /<Key>([^<]*)<\/Key>/).map { String($0.output.1) }
    }

    @Test("an upload is moved to the store whole, the media names the object, a replay keeps one object, and a delete removes it")
    func uploadsGoToTheStore() async throws {
        let server = try await RunningObjectStore.start()
        let objects = try Self.objects(server)
        try await RunningAPI.with(configure: { $0.objects = objects }) { api in
            let key = try await api.key(.admin)
            let book = FixtureBook.file("book.m4b").path
            let first = try await HTTP.request(
                "POST", api.url("/v1/media"), key: key, headers: ["Idempotency-Key": "book-1"], body: .form([], files: [("file", book)]))
            #expect(first.status == 202)
            let id = try #require((first.json["media"] as? [String: Any])?["media_id"] as? Int)
            let source = try await api.client.query("SELECT source FROM media WHERE id = \(Int64(id))").single().decode("source", as: String.self)
            let address = try #require(ObjectAddress(source), "the source is \(source)")
            #expect(address.bucket == server.bucket && address.key.hasPrefix("uploads/") && address.key.hasSuffix(".m4b"))
            #expect(api.uploadedFiles.isEmpty, "the spool kept \(api.uploadedFiles)")
            let read = try await server.curl(["\(server.endpoint)/\(server.bucket)/\(address.key)"])
            let bookBytes = Array(try Data(contentsOf: URL(fileURLWithPath: book)))
            #expect(read.status == 200 && read.body == bookBytes)
            // What every read checks, and the bytes' SHA-256, recorded with the media.
            let recorded = try await api.client.query("SELECT source_bytes, source_etag, source_sha256 FROM media WHERE id = \(Int64(id))").single()
            #expect(try recorded.decode("source_bytes", as: Int64?.self) == Int64(bookBytes.count))
            let head = try #require(try await objects.head(address.key))
            #expect(try recorded.decode("source_etag", as: String?.self) == head.etag)
            let sum = try await ChildProcess.run("/usr/bin/sha256sum", [book]).standardOutput.prefix(64)
            #expect(try recorded.decode("source_sha256", as: String?.self) == String(sum))

            let replay = try await HTTP.request(
                "POST", api.url("/v1/media"), key: key, headers: ["Idempotency-Key": "book-1"], body: .form([], files: [("file", book)]))
            #expect(replay.json["replayed"] as? Bool == true)
            #expect(try await Self.storedKeys(server) == [address.key])

            // A recording no decoder reads is refused and leaves no object.
            let text = FileManager.default.temporaryDirectory.appendingPathComponent("steno-not-audio-\(UUID().uuidString).mp3").path
            try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: text))
            defer { try? FileManager.default.removeItem(atPath: text) }
            let refused = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .form([], files: [("file", text)]))
            #expect(refused.status == 415)
            #expect(try await Self.storedKeys(server) == [address.key])

            let deleted = try await HTTP.request("DELETE", api.url("/v1/media/\(id)"), key: key)
            #expect(deleted.status == 200)
            #expect(try await objects.head(address.key) == nil)
            #expect(try await Self.storedKeys(server).isEmpty)
        }
    }

    @Test("the reader plays a stored recording through a short-lived link, only for its own tenant")
    func playbackThroughSignedLinks() async throws {
        let server = try await RunningObjectStore.start()
        let objects = try Self.objects(server)
        try await RunningAPI.with(configure: { $0.objects = objects }) { api in
            let key = try await api.key(.admin)
            let book = FixtureBook.file("book.m4b").path
            let uploaded = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .form([], files: [("file", book)]))
            let id = try #require((uploaded.json["media"] as? [String: Any])?["media_id"] as? Int)
            let browser = WebViewTests.Browser(api: api)
            try await browser.signIn(key)
            let audio = try await browser.get("/media/\(id)/audio")
            #expect(audio.status == 302)
            let link = try #require(audio.headers["location"])
            #expect(link.hasPrefix(server.endpoint + "/") && link.contains("X-Amz-Expires=600"))
            let expected = try Data(contentsOf: URL(fileURLWithPath: book)).subdata(in: 100..<1124)
            let saved = FileManager.default.temporaryDirectory.appendingPathComponent("steno-part-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: saved) }
            _ = try await ChildProcess.run("/usr/bin/curl", ["-s", "-r", "100-1123", "-o", saved, link])
            #expect(FileManager.default.contents(atPath: saved) == expected)
            let page = try await browser.get("/media/\(id)")
            #expect(!page.text.contains("has no copy of it to play"))

            let other = WebViewTests.Browser(api: api)
            try await other.signIn(try await api.key(.admin, tenant: "globex"))
            let theirs = try await other.get("/media/\(id)/audio")
            #expect(theirs.status == 404 && theirs.headers["location"] == nil)
        }
    }
}
