import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoAPI

@Suite("steno-api sweeps the uploads no media names")
struct UploadSweeperTests {
    @Test("an upload left by steno delete or by a stopped server goes; a media's upload, a new one and other files stay")
    func sweep() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.submit)
            let book = FixtureBook.file("book.m4b").path
            var uploaded: [(id: Int64, path: String)] = []
            for title in ["kept", "deleted by the CLI"] {
                let answer = try await HTTP.request(
                    "POST", api.url("/v1/media"), key: key, body: .form([("title", title)], files: [("file", book)]))
                #expect(answer.status == 202, "\(answer.text)")
                let id = try #require((answer.json["media"] as? [String: Any])?["media_id"] as? Int)
                let source = try await AdminStore(client: api.client).source(of: Int64(id), tenant: "acme")
                uploaded.append((Int64(id), source))
            }
            // What `steno delete` runs: the media goes, its recording stays on disk.
            _ = try await AdminStore(client: api.client).delete(mediaID: uploaded[1].id)
            #expect(FileManager.default.fileExists(atPath: uploaded[1].path))

            let directory = api.uploadDirectory
            let strayName = UUID().uuidString.lowercased() + ".mp3"
            let youngName = UUID().uuidString.lowercased() + ".wav"
            let folderName = UUID().uuidString.lowercased()
            for name in [strayName, youngName, "notes.txt"] {
                #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(repeating: 7, count: 1000)))
            }
            try FileManager.default.createDirectory(atPath: directory + "/" + folderName, withIntermediateDirectories: false)
            let twoHoursAgo = Date().addingTimeInterval(-7200)
            for path in [uploaded[0].path, uploaded[1].path] + [strayName, "notes.txt", folderName].map({ directory + "/" + $0 }) {
                try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: path)
            }
            let deletedBytes = try #require(FileManager.default.attributesOfItem(atPath: uploaded[1].path)[.size] as? NSNumber).int64Value

            let sweeper = try #require(api.server.uploadSweeper)
            let outcome = try await sweeper.sweep(now: Date())
            #expect(outcome == UploadSweeper.Outcome(examined: 3, removed: 2, removedBytes: deletedBytes + 1000))
            #expect(FileManager.default.fileExists(atPath: uploaded[0].path), "the upload of a media that exists was removed")
            #expect(!FileManager.default.fileExists(atPath: uploaded[1].path), "the deleted media's upload was kept")
            #expect(!FileManager.default.fileExists(atPath: directory + "/" + strayName), "the stopped server's upload was kept")
            for name in [youngName, "notes.txt", folderName] {
                #expect(FileManager.default.fileExists(atPath: directory + "/" + name), "\(name) was removed")
            }
            let metrics = try await HTTP.request("GET", api.url("/metrics"))
            #expect(metrics.text.contains("steno_api_uploads_swept_total 2"))
            #expect(metrics.text.contains("steno_api_uploads_swept_bytes_total \(deletedBytes + 1000)"))

            // Nothing left to remove the second time.
            #expect(try await sweeper.sweep(now: Date()) == UploadSweeper.Outcome(examined: 1, removed: 0, removedBytes: 0))
        }
    }
}
