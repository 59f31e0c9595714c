import Foundation
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@Suite("steno enqueue")
struct EnqueueCommandTests {
    @Test("a directory, a quoted glob and a URL become media rows with one media job each, in one go")
    func enqueueSources() async throws {
        let folder = try MediaFolder()
        defer { folder.remove() }
        let first = try folder.file("book/01.mp3")
        let second = try folder.file("book/part 2.m4b")
        try folder.file("book/cover.jpg")
        try folder.file("book/.hidden/secret.mp3")
        let talk = try folder.file("talks/talk.wav")
        try await TestDatabase.with { database in
            let result = try await database.steno([
                "enqueue", folder.root.appendingPathComponent("book").path, folder.root.path + "/talks/*.wav",
                "https://example.com/episode.mp3", "--priority", "high", "--chapters", "1,3-4", "--language", "en",
                "--model", "whisper-1", "--webhook", "https://hooks.example.com/steno", "--json",
                "--prompt", "  Chalabi, KEDA, PgQueuer.\n",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let enqueued = try JSONOf.array(result.standardOutput)
            #expect(enqueued.map { $0["source"] as? String } == [first, second, talk, "https://example.com/episode.mp3"])
            #expect(result.standardError.contains("skipped 1 file"), "cover.jpg is not media")

            let client = database.client()
            let rows = try await client.query(
                """
                SELECT m.id, m.source, m.state, m.priority, m.language, m.model, m.prompt, m.webhook_url, m.chapter_selection::text AS selection,
                       j.kind, j.state AS job_state, j.priority AS job_priority
                FROM media m JOIN jobs j ON j.media_id = m.id ORDER BY m.id
                """)
            #expect(rows.count == 4)
            for (row, item) in zip(rows, enqueued) {
                #expect(try row.decode("id", as: Int64.self) == (item["media_id"] as? NSNumber)?.int64Value)
                #expect(try row.decode("state", as: String.self) == "queued")
                #expect(try row.decode("priority", as: Int.self) == 2)
                #expect(try row.decode("language", as: String.self) == "en")
                #expect(try row.decode("model", as: String.self) == "whisper-1")
                #expect(try row.decode("prompt", as: String.self) == "Chalabi, KEDA, PgQueuer.")
                #expect(try row.decode("webhook_url", as: String.self) == "https://hooks.example.com/steno")
                #expect(try row.decode("selection", as: String.self) == "{0,2,3}", "1-based 1,3-4 stored as 0-based indexes")
                #expect(try row.decode("kind", as: String.self) == "media")
                #expect(try row.decode("job_state", as: String.self) == "queued")
                #expect(try row.decode("job_priority", as: Int.self) == 2)
            }
            await client.shutdown()
        }
    }

    @Test("a source already queued is refused, nothing is enqueued, and --force enqueues it again")
    func duplicates() async throws {
        let folder = try MediaFolder()
        defer { folder.remove() }
        let file = try folder.file("a.mp3")
        let other = try folder.file("b.mp3")
        try await TestDatabase.with { database in
            let first = try await database.steno(["enqueue", file])
            #expect(first.status == 0)
            #expect(first.standardOutput.contains("media 1  \(file)"))

            let again = try await database.steno(["enqueue", other, file])
            #expect(again.status == 2)
            #expect(again.standardError.contains("already queued or in progress: \(file) (media 1, queued)"))
            #expect(again.standardError.contains("--force"))
            let client = database.client()
            #expect(try await client.query("SELECT count(*) AS n FROM media").single().decode("n", as: Int.self) == 1, "all or nothing")

            let forced = try await database.steno(["enqueue", other, file, "--force"])
            #expect(forced.status == 0, "\(forced.standardError)")
            #expect(try await client.query("SELECT count(*) AS n FROM media WHERE source = \(file)").single().decode("n", as: Int.self) == 2)

            // A source that finished may be enqueued again without --force.
            try await client.query("UPDATE media SET state = 'succeeded' WHERE source = \(other)")
            #expect(try await database.steno(["enqueue", other]).status == 0)
            await client.shutdown()
        }
    }

    @Test("sources that cannot be enqueued are each named, and nothing is stored")
    func invalidSources() async throws {
        let folder = try MediaFolder()
        defer { folder.remove() }
        let good = try folder.file("good.mp3")
        let empty = try folder.file("empty.mp3", bytes: 0)
        let unreadable = try folder.file("locked.mp3")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: unreadable)
        let emptyDirectory = folder.root.appendingPathComponent("nothing")
        try FileManager.default.createDirectory(at: emptyDirectory, withIntermediateDirectories: true)
        try await TestDatabase.with { database in
            var arguments = ["enqueue", good, folder.root.path + "/missing.mp3", empty, emptyDirectory.path, folder.root.path + "/*.flac",
                             "ftp://example.com/a.mp3", "https://"]
            let root = getuid() == 0
            if !root { arguments.append(unreadable) }
            let result = try await database.steno(arguments)
            #expect(result.status == 2)
            #expect(result.standardError.contains("missing.mp3: no such file"))
            #expect(result.standardError.contains("empty.mp3: the file is empty"))
            #expect(result.standardError.contains("nothing: the directory holds no media files"))
            #expect(result.standardError.contains("*.flac: no file matches this pattern"))
            #expect(result.standardError.contains("ftp://example.com/a.mp3: only files and http(s) URLs can be read, not ftp://"))
            #expect(result.standardError.contains("https://: the URL has no host"))
            if !root { #expect(result.standardError.contains("locked.mp3: not readable")) }
            #expect(result.standardError.contains("nothing was enqueued"))
            #expect(!result.standardError.contains("Fatal error"))
            let client = database.client()
            #expect(try await client.query("SELECT count(*) AS n FROM media").single().decode("n", as: Int.self) == 0)
            await client.shutdown()
        }
    }

    @Test("with a media root, files outside it (also through a symbolic link) are refused")
    func mediaRoot() async throws {
        let folder = try MediaFolder()
        let outside = try MediaFolder()
        defer {
            folder.remove()
            outside.remove()
        }
        let inside = try folder.file("library/in.mp3")
        let elsewhere = try outside.file("out.mp3")
        let link = folder.root.appendingPathComponent("library/link.mp3").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
        try await TestDatabase.with { database in
            let environment = ["STENO_MEDIA_ROOT": folder.root.appendingPathComponent("library").path]
            let refused = try await database.steno(["enqueue", inside, elsewhere, link], environment: environment)
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("out.mp3: outside the media root"))
            #expect(refused.standardError.contains("link.mp3: outside the media root"))
            #expect(!refused.standardError.contains("in.mp3: outside"))
            let accepted = try await database.steno(["enqueue", inside], environment: environment)
            #expect(accepted.status == 0, "\(accepted.standardError)")
        }
    }

    @Test("bad options are refused with what to use instead", arguments: [
        (["--priority", "urgent"], "--priority must be high, medium or low"),
        (["--chapters", "3-1"], "runs backwards"),
        (["--language", "english!"], "--language must be auto, multi or an ISO 639 code"),
        (["--webhook", "mailto:ops@example.com"], "--webhook must be an http(s) URL"),
        (["--title", "One title"], "--title names one recording, but 2 sources"),
        (["--prompt", "   "], "--prompt must not be empty"),
        (["--prompt", String(repeating: "Kubernetes ", count: 100)], "--prompt has 1100 characters; the longest is 1000"),
        (["--prompt", "bell\u{07}"], "--prompt must not contain control characters"),
    ])
    func badOptions(options: [String], message: String) async throws {
        let folder = try MediaFolder()
        defer { folder.remove() }
        let first = try folder.file("a.mp3")
        let second = try folder.file("b.mp3")
        try await TestDatabase.with { database in
            let result = try await database.steno(["enqueue", first, second] + options)
            #expect(result.status == 2)
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }

    @Test("an unmigrated database exits 4 and says to run steno migrate")
    func unmigrated() async throws {
        let folder = try MediaFolder()
        defer { folder.remove() }
        let file = try folder.file("a.mp3")
        try await TestDatabase.with(migrated: false) { database in
            let result = try await database.steno(["enqueue", file])
            #expect(result.status == 4)
            #expect(result.standardError.contains("run `steno migrate`"))
        }
    }

    @Test("a database migrated to 0001, or to one short of the newest migration, exits 4 too", arguments: [1, StenoSchema.requiredMigration - 1])
    func partlyMigrated(upTo applied: Int) async throws {
        try await TestDatabase.with(migrated: false) { database in
            let connection = try await PostgresConnection.connect(configuration: database.configuration)
            let first = try Migration.load(from: PackageRoot.migrations).filter { $0.version <= applied }
            _ = try await MigrationRunner(migrations: first).migrate(on: connection)
            await connection.close()
            // `steno workers` reads a table made by migration 0007: it must be refused as plainly.
            for command in ["status", "workers", "report"] {
                let result = try await database.steno([command])
                #expect(result.status == 4, "steno \(command): \(result.standardError)")
                #expect(result.standardError.contains("the database schema is at migration \(applied); this steno needs migration \(StenoSchema.requiredMigration)"),
                        "steno \(command): \(result.standardError)")
                #expect(result.standardError.contains("run `steno migrate`"))
            }
        }
    }

    @Test("an unreachable database exits 3 for every command, without the password")
    func unreachable() async throws {
        let password = TestSecret.make("pw")
        for arguments in [["status"], ["list"], ["wait", "1"], ["report"], ["workers"], ["cancel", "1"], ["transcript", "1"]] {
            let result = try await StenoProcess.run(
                arguments + ["--database-url", "postgres://steno:\(password)@127.0.0.1:1/steno", "--connect-window", "0"])
            #expect(result.status == 3, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("cannot reach the database"), "\(result.standardError)")
            #expect(!result.standardError.contains(password))
            #expect(!result.standardError.contains("Fatal error"))
        }
    }
}
