import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

/// Names of recordings are someone else's text: escape sequences and newlines in them must not
/// reach the terminal raw, nor break a table row in two.
@Suite("terminal-safe output")
struct TerminalSafetyTests {
    @Test("a file name with escape sequences and a newline is shown escaped by enqueue, list and status")
    func hostileFileName() async throws {
        let folder = try MediaFolder()
        defer { folder.remove() }
        let hostile = try folder.file("evil\u{1B}]0;owned\u{07}\u{1B}[31mred\nsecond line\u{202E}3pm.mp3")
        try await TestDatabase.with { database in
            let enqueued = try await database.steno(["enqueue", hostile])
            #expect(enqueued.status == 0, "\(enqueued.standardError)")
            let list = try await database.steno(["list"])
            #expect(list.status == 0, "\(list.standardError)")
            let status = try await database.steno(["status", "1"])
            #expect(status.status == 0, "\(status.standardError)")
            for (command, output) in [("enqueue", enqueued.standardOutput), ("list", list.standardOutput), ("status", status.standardOutput)] {
                #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, "\(command): \(output.debugDescription)")
                #expect(output.contains("\\e[31mred\\nsecond line"), "\(command): \(output.debugDescription)")
            }
            // One media, one row: the header and the row, nothing split by the newline.
            let rows = list.standardOutput.split(separator: "\n").filter { !$0.isEmpty }
            #expect(rows.count == 2, "\(list.standardOutput.debugDescription)")
        }
    }

    @Test("an empty source (an unset shell variable) is refused before anything is enqueued", arguments: [[""], ["  "], ["/tmp", ""]])
    func blankSource(sources: [String]) async throws {
        try await TestDatabase.with { database in
            let result = try await database.steno(["enqueue"] + sources)
            #expect(result.status == 64, "\(result.standardError)")
            #expect(result.standardError.contains("is empty"), "\(result.standardError)")
            let client = database.client()
            let count: Int64 = try await client.query("SELECT count(*) AS n FROM media").single().decode("n")
            #expect(count == 0)
            await client.shutdown()
        }
    }
}

@Suite("secrets in sources")
struct SourceCredentialTests {
    @Test("credentials in a media URL are not shown by enqueue, status, list or --json")
    func urlCredentialsAreRedacted() async throws {
        try await TestDatabase.with { database in
            let password = TestSecret.make("pw")
            let source = "http://alice:\(password)@media.example.com/book.mp3"
            var outputs: [(String, ChildProcess)] = []
            outputs.append(("enqueue", try await database.steno(["enqueue", source])))
            outputs.append(("enqueue --json", try await database.steno(["enqueue", "--force", "--json", source])))
            outputs.append(("status", try await database.steno(["status", "1"])))
            outputs.append(("status --json", try await database.steno(["status", "1", "--json"])))
            outputs.append(("list --json", try await database.steno(["list", "--json"])))
            for (command, result) in outputs {
                #expect(result.status == 0, "\(command): \(result.standardError)")
                #expect(!(result.standardOutput + result.standardError).contains(password), "\(command) printed the password")
            }
            #expect(outputs[0].1.standardOutput.contains("alice:[redacted]@media.example.com"), "\(outputs[0].1.standardOutput)")
        }
    }
}

@Suite("a malformed database URL")
struct MalformedDatabaseURLTests {
    @Test("is a usage error at once (exit 2, no retries), and its password is never printed", arguments: [
        "postgres://user:PASSWORD@[bad/db", "postgres://user:PASSWORD@host:notaport/db", "host=db password=PASSWORD port",
    ])
    func malformedURL(template: String) async throws {
        let password = TestSecret.make("pw")
        let url = template.replacingOccurrences(of: "PASSWORD", with: password)
        // A connect window longer than the child's time limit: a URL retried as if the server were
        // down would be killed there, not exit 2.
        let result = try await StenoProcess.run(["status", "--database-url", url, "--connect-window", "3600"], timeLimit: .seconds(120))
        #expect(result.status == 2, "\(result.standardError)")
        #expect(!(result.standardOutput + result.standardError).contains(password), "\(result.standardError)")
        #expect(result.standardError.contains("cannot be read") || result.standardError.contains("invalid"), "\(result.standardError)")
    }
}

@Suite("probe of sources that never answer")
struct ProbeHangTests {
    @Test("a source URL that never answers fails after --source-timeout, naming the source, not the backend")
    func silentServer() async throws {
        let server = try FaultServer(replies: [], then: .hang)
        defer { server.stop() }
        // The server never answers: only the source timeout can end the probe before the child's
        // time limit kills it.
        let result = try await StenoProcess.run(["probe", server.baseURL + "/book.m4b", "--source-timeout", "2"], timeLimit: .seconds(120))
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("127.0.0.1"), "\(result.standardError)")
        #expect(!result.standardError.contains("backend"), "\(result.standardError)")
    }

    @Test("a FIFO is refused at once instead of blocking for a writer")
    func fifo() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steno-probe-fifo-\(getpid()).mp3").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let result = try await StenoProcess.run(["probe", path])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("named pipe"), "\(result.standardError)")
    }

    @Test("a source timeout out of range is a usage error", arguments: ["0", "inf", "nan", "99999"])
    func badTimeout(value: String) async throws {
        let result = try await StenoProcess.run(["probe", "/tmp/x.mp3", "--source-timeout", value])
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains("--source-timeout"), "\(result.standardError)")
    }
}
