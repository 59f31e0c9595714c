import Foundation
import StenoAPI
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// Adding, listing, reading and removing media, and what bad input gets.
@Suite("steno-api: media")
struct APIMediaTests {
    @Test("an upload is streamed to the upload directory byte for byte and answered 202 with Location")
    func uploadIsStoredWhole() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.submit)
            let book = FixtureBook.file("book.m4b").path
            let answer = try await HTTP.request(
                "POST", api.url("/v1/media"), key: key,
                body: .form([("title", "The Keeper"), ("priority", "high"), ("language", "en"), ("chapters", "1-2")], files: [("file", book)]))
            #expect(answer.status == 202)
            let media = try #require(answer.json["media"] as? [String: Any])
            let id = try #require(media["media_id"] as? Int)
            #expect(answer.headers["location"] == "/v1/media/\(id)")
            #expect(media["title"] as? String == "The Keeper")
            #expect(media["priority"] as? Int == Int(JobPriority.high.rawValue))
            #expect(media["chapter_selection"] as? String == "1-2")
            #expect(answer.json["replayed"] as? Bool == false)
            let files = api.uploadedFiles
            #expect(files.count == 1)
            let stored = try #require(files.first)
            #expect(stored.hasSuffix(".m4b"))
            #expect(FileManager.default.contents(atPath: api.uploadDirectory + "/" + stored) == FileManager.default.contents(atPath: book))
            let row = try await api.client.query("SELECT source, tenant FROM media WHERE id = \(Int64(id))").single()
            #expect(try row.decode("source", as: String.self) == api.uploadDirectory + "/" + stored)
            #expect(try row.decode("tenant", as: String.self) == "acme")
        }
    }

    @Test("a retried POST with the same Idempotency-Key returns the first media and keeps one file")
    func idempotentSubmission() async throws {
        try await RunningAPI.with { api in
            let key = try await api.key(.submit)
            let clip = FixtureBook.file("clip-2s.flac").path
            let first = try await HTTP.request("POST", api.url("/v1/media"), key: key, headers: ["Idempotency-Key": "upload-42"], body: .form([], files: [("file", clip)]))
            let second = try await HTTP.request("POST", api.url("/v1/media"), key: key, headers: ["Idempotency-Key": "upload-42"], body: .form([], files: [("file", clip)]))
            #expect(first.status == 202)
            #expect(second.status == 202)
            #expect(second.headers["location"] == first.headers["location"])
            #expect(second.json["replayed"] as? Bool == true)
            #expect(api.uploadedFiles.count == 1)
            let other = try await HTTP.request("POST", api.url("/v1/media"), key: key, headers: ["Idempotency-Key": "upload-43"], body: .form([], files: [("file", clip)]))
            #expect(other.headers["location"] != first.headers["location"])
            // The same key in another tenant is another media.
            let globex = try await api.key(.submit, tenant: "globex")
            let theirs = try await HTTP.request("POST", api.url("/v1/media"), key: globex, headers: ["Idempotency-Key": "upload-42"], body: .form([], files: [("file", clip)]))
            #expect(theirs.json["replayed"] as? Bool == false)
        }
    }

    @Test("an upload over the limit is 413 and leaves no file; one no decoder reads is 415 and leaves none")
    func tooLargeAndUnreadable() async throws {
        try await RunningAPI.with(configure: { $0.maxUploadBytes = 100_000 }) { api in
            let key = try await api.key(.submit)
            let large = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .form([], files: [("file", FixtureBook.file("book.m4b").path)]))
            #expect(large.status == 413)
            #expect(large.errorCode == "upload_too_large")
            #expect(api.uploadedFiles.isEmpty)
            let garbage = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .form([], files: [("file", FixtureBook.file("not-audio.mp3").path)]))
            #expect(garbage.status == 415)
            #expect(garbage.errorField == "file")
            let empty = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .form([], files: [("file", FixtureBook.file("empty.mp3").path)]))
            #expect(empty.status == 415)
            #expect(api.uploadedFiles.isEmpty)
            let count = try await api.client.query("SELECT count(*) AS n FROM media").single().decode("n", as: Int.self)
            #expect(count == 0)
        }
    }

    @Test("bad fields get 400 naming the field, and nothing is stored", arguments: [
        (#"{"url": "https://example.com/a.mp3", "priority": "urgent"}"#, "priority"),
        (#"{"url": "https://example.com/a.mp3", "language": "english please"}"#, "language"),
        (#"{"url": "https://example.com/a.mp3", "chapters": "5-3"}"#, "chapters"),
        (#"{"url": "https://example.com/a.mp3", "webhook": "ftp://hook.example/"}"#, "webhook"),
        (#"{"url": "https://example.com/a.mp3", "title": "a\u0000b"}"#, "title"),
        (#"{"url": "https://example.com/a.mp3", "colour": "blue"}"#, "colour"),
        (#"{"url": "ftp://example.com/a.mp3"}"#, "url"),
        (#"{"url": "http://127.0.0.1:5432/"}"#, "url"),
        (#"{"url": "http://[::ffff:169.254.169.254]/latest/meta-data"}"#, "url"),
        (#"{"url": "http://10.1.2.3/a.mp3"}"#, "url"),
        (#"{"url": "http://localhost/a.mp3"}"#, "url"),
        (#"{"url": "https://example.com/a.mp3", "webhook": "http://192.168.1.1/hook"}"#, "webhook"),
        (#"{"path": "../../etc/passwd"}"#, "path"),
        (#"{}"#, "file"),
    ])
    func badFields(_ body: String, field: String) async throws {
        let root = FixtureBook.directory.path
        try await InProcessAPI.with(configure: { $0.mediaRoot = root; $0.outbound = OutboundURLPolicy(allowedHosts: ["example.com"]) }) { api in
            let key = try await api.key(.submit)
            let answer = try await api.request("POST", "/v1/media", key: key, body: .json(body))
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.errorField == field, "\(answer.text)")
            #expect(answer.errorMessage?.isEmpty == false)
            let count = try await api.owner.query("SELECT count(*) AS n FROM media").single().decode("n", as: Int.self)
            #expect(count == 0)
        }
    }

    @Test("a path source is taken inside the media root only, symbolic links resolved")
    func pathSources() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("steno-root-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/talks", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.copyItem(atPath: FixtureBook.file("clip-2s.flac").path, toPath: root + "/talks/clip.flac")
        try FileManager.default.createSymbolicLink(atPath: root + "/escape.mp3", withDestinationPath: FixtureBook.file("book.mp3").path)
        try await RunningAPI.with(configure: { $0.mediaRoot = root }) { api in
            let key = try await api.key(.submit)
            let inside = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .json(#"{"path": "talks/clip.flac"}"#))
            #expect(inside.status == 202)
            #expect((inside.json["media"] as? [String: Any])?["source"] as? String == root + "/talks/clip.flac")
            let absolute = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .json(#"{"path": "\#(root)/talks/clip.flac"}"#))
            #expect(absolute.status == 202)
            let escaping = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .json(#"{"path": "escape.mp3"}"#))
            #expect(escaping.status == 400)
            let directory = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .json(#"{"path": "talks"}"#))
            #expect(directory.status == 400)
        }
    }

    @Test("the list pages by cursor, newest first, and filters by state, priority and text")
    func listing() async throws {
        try await InProcessAPI.with { api in
            let key = try await api.key(.admin)
            var ids: [Int] = []
            for index in 0..<5 {
                let answer = try await api.request("POST", "/v1/media", key: key,
                    body: .form([("title", "Episode \(index)"), ("priority", index == 4 ? "high" : "low")], files: [("file", FixtureBook.file("clip-2s.flac").path)]))
                ids.append(try #require((answer.json["media"] as? [String: Any])?["media_id"] as? Int))
            }
            let first = try await api.request("GET", "/v1/media?limit=2", key: key)
            let firstIDs = (first.json["media"] as? [[String: Any]])?.compactMap { $0["media_id"] as? Int }
            #expect(firstIDs == [ids[4], ids[3]])
            let cursor = try #require(first.json["next_cursor"] as? String)
            let second = try await api.request("GET", "/v1/media?limit=2&cursor=\(cursor)", key: key)
            #expect((second.json["media"] as? [[String: Any]])?.compactMap { $0["media_id"] as? Int } == [ids[2], ids[1]])
            let high = try await api.request("GET", "/v1/media?priority=high", key: key)
            #expect((high.json["media"] as? [[String: Any]])?.compactMap { $0["media_id"] as? Int } == [ids[4]])
            let text = try await api.request("GET", "/v1/media?q=episode%203", key: key)
            #expect((text.json["media"] as? [[String: Any]])?.compactMap { $0["media_id"] as? Int } == [ids[3]])
            _ = try await api.request("POST", "/v1/media/\(ids[0])/cancel", key: key)
            let cancelled = try await api.request("GET", "/v1/media?state=cancelled", key: key)
            #expect((cancelled.json["media"] as? [[String: Any]])?.compactMap { $0["media_id"] as? Int } == [ids[0]])
            for query in ["state=lost", "priority=urgent", "limit=0", "limit=201", "cursor=abc", "since=yesterday"] {
                let answer = try await api.request("GET", "/v1/media?\(query)", key: key)
                #expect(answer.status == 400, "\(query)")
            }
        }
    }

    @Test("a known path with another method answers 405 with Allow")
    func methodNotAllowed() async throws {
        try await InProcessAPI.with { api in
            let key = try await api.key(.admin)
            let answer = try await api.request("PUT", "/v1/media/1", key: key)
            #expect(answer.status == 405)
            #expect(answer.headers["allow"] == "DELETE, GET")
            #expect(try await api.request("TRACE", "/v1/media", key: key).status == 405)
        }
    }

    @Test("a JSON body over the limit is 413 in the error shape")
    func largeJSONBody() async throws {
        try await InProcessAPI.with { api in
            let key = try await api.key(.submit)
            let big = #"{"title": ""# + String(repeating: "x", count: 2 << 20) + #""}"#
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-big-\(UUID().uuidString).json").path
            try big.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let answer = try await api.request("POST", "/v1/media", key: key, body: .raw(path: path, contentType: "application/json"))
            #expect(answer.status == 413)
            #expect(answer.errorCode != nil)
        }
    }
}
