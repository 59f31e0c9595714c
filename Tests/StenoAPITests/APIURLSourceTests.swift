import Foundation
import StenoAPI
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoTestSupport
import Testing

/// URL sources: fetched by the server into the upload directory, every connection checked.
@Suite("steno-api: URL sources")
struct APIURLSourceTests {
    /// A real HTTP server on 127.0.0.1 (Python's standard library): the fixtures, and
    /// `/redirect/NAME`, which answers 302 to http://127.0.0.1:PORT/NAME. It binds port 0 and
    /// writes the port the system gave it to a file: a port the test picked could be taken, and
    /// the test would then fetch from whatever holds it.
    final class FileServer: @unchecked Sendable {
        // @unchecked: `port` is set once, in init.
        private var process: BackgroundProcess?
        private(set) var port = 0

        /// Starts the server and returns once it answers.
        init(directory: String) async throws {
            let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("steno-file-server-\(UUID().uuidString).port").path
            defer { try? FileManager.default.removeItem(atPath: portFile) }
            let script = """
                import functools, http.server, os, sys
                class Handler(http.server.SimpleHTTPRequestHandler):
                    def do_GET(self):
                        if self.path.startswith('/redirect/'):
                            self.send_response(302)
                            self.send_header('Location', 'http://127.0.0.1:%d/%s' % (self.server.server_port, self.path[len('/redirect/'):]))
                            self.end_headers()
                            return
                        super().do_GET()
                    def log_message(self, *args):
                        pass
                server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Handler, directory=sys.argv[2]))
                with open(sys.argv[1] + '.new', 'w') as f:
                    f.write(str(server.server_port))
                os.rename(sys.argv[1] + '.new', sys.argv[1])
                server.serve_forever()
                """
            // Not the test's pipes: swift test waits for every holder of them to exit.
            process = try BackgroundProcess("/usr/bin/python3", ["-c", script, portFile, directory], environment: ProcessInfo.processInfo.environment)
            let written = try await polled(within: .seconds(60)) {
                (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            }
            guard let written else { throw TestEnvironmentError("the test file server wrote no port within 60 s") }
            port = written
            try await poll(until: {
                (try? await HTTP.request("GET", "http://127.0.0.1:\(written)/book.json", maxSeconds: 1))?.status == 200
            }, "the test file server up")
        }

        deinit { process?.signal(SIGKILL) }
    }

    @Test("an allowed host's recording is fetched to the upload directory, and the workers read the file")
    func fetchedToUploads() async throws {
        let server = try await FileServer(directory: FixtureBook.directory.path)
        try await RunningAPI.with(configure: { $0.outbound = OutboundURLPolicy(allowedHosts: ["localhost"]) }) { api in
            let key = try await api.key(.submit)
            let answer = try await HTTP.request(
                "POST", api.url("/v1/media"), key: key, body: .json(#"{"url": "http://localhost:\#(server.port)/clip-2s.flac?token=secret"}"#))
            #expect(answer.status == 202, "\(answer.text)")
            let media = try #require(answer.json["media"] as? [String: Any])
            #expect(media["title"] as? String == "clip-2s.flac")
            let source = try #require(media["source"] as? String)
            #expect(source.hasPrefix(api.uploadDirectory + "/") && source.hasSuffix(".flac"))
            #expect(FileManager.default.contents(atPath: source) == FileManager.default.contents(atPath: FixtureBook.file("clip-2s.flac").path))
            #expect(!answer.text.contains("token=secret"))
        }
    }

    @Test("a redirect to an address the policy refuses is refused at connect time, and leaves no file")
    func redirectToPrivateAddressIsRefused() async throws {
        let server = try await FileServer(directory: FixtureBook.directory.path)
        // localhost is allowed by name; the redirect goes to 127.0.0.1, which is not.
        try await RunningAPI.with(configure: { $0.outbound = OutboundURLPolicy(allowedHosts: ["localhost"]) }) { api in
            let key = try await api.key(.submit)
            let answer = try await HTTP.request(
                "POST", api.url("/v1/media"), key: key, body: .json(#"{"url": "http://localhost:\#(server.port)/redirect/clip-2s.flac"}"#))
            #expect(answer.status == 400)
            #expect(answer.errorCode == "url_not_allowed", "\(answer.text)")
            #expect(answer.errorMessage?.contains("127.0.0.1") == true)
            #expect(api.uploadedFiles.isEmpty)
        }
    }

    @Test("a URL that answers an error, or sends no audio, gets 400 or 415 and leaves no file")
    func badURLs() async throws {
        let server = try await FileServer(directory: FixtureBook.directory.path)
        try await RunningAPI.with(configure: { $0.outbound = OutboundURLPolicy(allowedHosts: ["127.0.0.1"]) }) { api in
            let key = try await api.key(.submit)
            let missing = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .json(#"{"url": "http://127.0.0.1:\#(server.port)/nothing.mp3"}"#))
            #expect(missing.status == 400)
            #expect(missing.errorCode == "url_unreachable")
            #expect(missing.errorMessage?.contains("404") == true)
            let notAudio = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .json(#"{"url": "http://127.0.0.1:\#(server.port)/book.json"}"#))
            #expect(notAudio.status == 415)
            #expect(api.uploadedFiles.isEmpty)
        }
        try await RunningAPI.with(configure: { $0.outbound = OutboundURLPolicy(allowedHosts: ["127.0.0.1"]); $0.maxUploadBytes = 10_000 }) { api in
            let key = try await api.key(.submit)
            let large = try await HTTP.request("POST", api.url("/v1/media"), key: key, body: .json(#"{"url": "http://127.0.0.1:\#(server.port)/book.m4b"}"#))
            #expect(large.status == 413)
            #expect(api.uploadedFiles.isEmpty)
        }
    }
}
