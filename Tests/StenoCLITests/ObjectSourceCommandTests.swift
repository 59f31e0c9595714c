import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

/// `steno enqueue s3://...` and `steno delete` with the fleet's object store.
@Suite("steno with an object store")
struct ObjectSourceCommandTests {
    static let storeEnvironment = [
        "STENO_S3_BUCKET": "steno-media", "STENO_S3_ENDPOINT": "http://127.0.0.1:9", "STENO_S3_ACCESS_KEY_ID": "steno",
        "STENO_S3_SECRET_ACCESS_KEY": "not-a-real-secret",
    ]

    @Test("an object of the fleet's bucket is enqueued by its address, with its size and entity tag; a missing one, another bucket's, or any without a store, is refused saying why",
        .enabled(if: RunningObjectStore.isAvailable, "SeaweedFS is not set up: run scripts/seaweedfs"))
    func enqueueObjects() async throws {
        let server = try await RunningObjectStore.start()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("steno-cli-s3-\(UUID().uuidString)").path
        try Data("twenty-six bytes of sound.".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try await server.curl(["-T", file, "\(server.endpoint)/\(server.bucket)/library/book.m4b"]).status == 200)
        let bucket = server.bucket
        try await TestDatabase.with { database in
            let taken = try await database.steno(["enqueue", "s3://\(bucket)/library/book.m4b", "--json"], environment: server.environment)
            #expect(taken.status == 0, "\(taken.standardError)")
            #expect(try JSONOf.array(taken.standardOutput).first?["source"] as? String == "s3://\(bucket)/library/book.m4b")
            let row = try await database.client().query("SELECT source_bytes, source_etag, source_sha256 FROM media").single()
            #expect(try row.decode("source_bytes", as: Int64?.self) == 26)
            #expect(try row.decode("source_etag", as: String?.self)?.isEmpty == false)
            #expect(try row.decode("source_sha256", as: String?.self) == nil, "Steno did not read the object's bytes")

            let missing = try await database.steno(["enqueue", "s3://\(bucket)/library/never-stored.m4b"], environment: server.environment)
            #expect(missing.status != 0)
            #expect(missing.standardError.contains("never-stored.m4b: no such object in the store"), "\(missing.standardError)")

            let foreign = try await database.steno(["enqueue", "s3://their-bucket/book.m4b"], environment: server.environment)
            #expect(foreign.status != 0)
            #expect(foreign.standardError.contains("only its own bucket, \(bucket)"), "\(foreign.standardError)")

            let unconfigured = try await database.steno(["enqueue", "s3://\(bucket)/library/book.m4b"])
            #expect(unconfigured.status != 0)
            #expect(unconfigured.standardError.contains("STENO_S3_BUCKET"), "\(unconfigured.standardError)")

            var badBucket = Self.storeEnvironment
            badBucket["STENO_S3_BUCKET"] = "Not_A_Bucket"
            let bad = try await database.steno(["enqueue", "s3://steno-media/library/other.m4b"], environment: badBucket)
            #expect(bad.status != 0 && bad.standardError.contains("STENO_S3_BUCKET"), "\(bad.standardError)")
            #expect(!bad.standardError.contains("not-a-real-secret"))
            for output in [taken, missing, foreign] {
                #expect(!output.standardOutput.contains(server.secretKey) && !output.standardError.contains(server.secretKey))
            }
            let count = try await database.client().query("SELECT count(*) AS n FROM media").single().decode("n", as: Int.self)
            #expect(count == 1)
        }
    }

    @Test("steno delete removes the object of an upload and keeps an object enqueued by its own address",
        .enabled(if: RunningObjectStore.isAvailable, "SeaweedFS is not set up: run scripts/seaweedfs"))
    func deleteRemovesUploads() async throws {
        let server = try await RunningObjectStore.start()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("steno-cli-s3-\(UUID().uuidString)").path
        try Data("recording".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        for key in ["uploads/one.m4b", "library/two.m4b"] {
            #expect(try await server.curl(["-T", file, "\(server.endpoint)/\(server.bucket)/\(key)"]).status == 200)
        }
        try await TestDatabase.with { database in
            let enqueued = try await database.steno(
                ["enqueue", "s3://\(server.bucket)/uploads/one.m4b", "s3://\(server.bucket)/library/two.m4b", "--json"], environment: server.environment)
            #expect(enqueued.status == 0, "\(enqueued.standardError)")
            let ids = try JSONOf.array(enqueued.standardOutput).compactMap { ($0["media_id"] as? NSNumber)?.stringValue }
            try #require(ids.count == 2)
            let deleted = try await database.steno(["delete"] + ids, environment: server.environment)
            #expect(deleted.status == 0, "\(deleted.standardError)")
            #expect(deleted.standardOutput.contains("deleted media \(ids[0])") && deleted.standardOutput.contains("its recording removed from the object store"))
            #expect(try await server.curl(["\(server.endpoint)/\(server.bucket)/uploads/one.m4b"]).status == 404)
            #expect(try await server.curl(["\(server.endpoint)/\(server.bucket)/library/two.m4b"]).status == 200)
            #expect(!deleted.standardOutput.contains(server.secretKey) && !deleted.standardError.contains(server.secretKey))
        }
    }
}
