import Foundation
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
