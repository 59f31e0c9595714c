import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

/// Commands given several ids check them all before changing anything, and writes that fail are
/// reported as failures, with the system's reason.
@Suite("all or nothing, and checked writes")
struct PartialChangeTests {
    @Test("delete and retry with one unknown id among good ones change nothing and name the unknown ids", arguments: ["delete", "retry"])
    func unknownIdChangesNothing(command: String) async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let failed = try await TestMediaBuilder.insert(Library.failedAtProbe(), into: client).mediaID
            let result = try await database.steno([command, String(failed), "99999", "99998"])
            #expect(result.status == 2, "\(result.standardError)")
            #expect(result.standardError.contains("99998, 99999"), "\(result.standardError)")
            #expect(result.standardError.contains("nothing was changed"), "\(result.standardError)")
            let state: String = try await client.query("SELECT state FROM media WHERE id = \(failed)").single().decode("state")
            #expect(state == "failed", "media \(failed) was changed by a command that failed")
            await client.shutdown()
        }
    }

    @Test("a transcript written to a full disk is an error with the system's reason, not a success")
    func fullDisk() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(TranscriptCommandTests.book(), into: client)
            let result = try await database.steno(["transcript", String(media.mediaID), "-o", "/dev/full", "--format", "txt"])
            #expect(result.status == 2, "\(result.standardError)")
            #expect(result.standardError.contains("No space left on device"), "\(result.standardError)")
            #expect(!result.standardError.contains("NSCocoaErrorDomain") && !result.standardError.contains("wrote"), "\(result.standardError)")
            let missingFolder = try await database.steno(["transcript", String(media.mediaID), "-o", "/nonexistent-folder/t.srt"])
            #expect(missingFolder.status == 2)
            #expect(missingFolder.standardError.contains("No such file or directory"), "\(missingFolder.standardError)")
            #expect(FileManager.default.fileExists(atPath: "/dev/full"))
            await client.shutdown()
        }
    }

    @Test("output to a full disk is a failure with the system's reason, for text and JSON alike", arguments: [["list"], ["list", "--json"], ["status"]])
    func standardOutputToFullDisk(arguments: [String]) async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            _ = try await TestMediaBuilder.insert(Library.succeeded(), into: client)
            let steno = PackageRoot.product("steno").path
            let command = ([steno] + arguments + ["--database-url", database.configuration.connectionString])
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let result = try await ChildProcess.run("/bin/sh", ["-c", command + " > /dev/full"])
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("No space left on device"), "\(result.standardError)")
            await client.shutdown()
        }
    }

    @Test("the transcript of a failed media points to status and retry, not to wait")
    func failedMediaHint() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let failed = try await TestMediaBuilder.insert(Library.failedAtProbe(), into: client).mediaID
            let result = try await database.steno(["transcript", String(failed)])
            #expect(result.status != 0)
            #expect(result.standardError.contains("steno retry \(failed)"), "\(result.standardError)")
            #expect(!result.standardError.contains("steno wait"), "\(result.standardError)")
            await client.shutdown()
        }
    }
}
