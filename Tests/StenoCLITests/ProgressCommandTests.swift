import Foundation
import StenoPostgres
import StenoTestSupport
import Testing

@Suite("steno status and steno list")
struct ProgressCommandTests {
    @Test("status MEDIA: stage, percent weighted by audio duration, attempts, cost, failure in plain words, per chapter")
    func statusOfMedia() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let moby = try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            let result = try await database.steno(["status", String(moby.mediaID), "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let status = try JSONOf.object(result.standardOutput)
            let media = try #require(status["media"] as? [String: Any])
            #expect(media["stage"] as? String == "transcribing")
            #expect(media["percent"] as? Double == 62.5)
            #expect(media["chapters"] as? Int == 3)
            #expect(media["chapters_done"] as? Int == 1)
            #expect(media["chapters_failed"] as? Int == 1)
            // media 1 + chapters 3 + chunks 1+1+2+1+3+1 attempts.
            #expect(media["attempts"] as? Int == 1 + 3 + 9)
            #expect(media["failed_jobs"] as? Int == 1)
            #expect(abs((media["cost_usd"] as? Double ?? 0) - 0.05) < 1e-9)
            // 0.05 for 250 of 400 seconds: 0.08 for all of it.
            #expect(abs((media["estimated_cost_usd"] as? Double ?? 0) - 0.08) < 1e-6)
            #expect(media["error_class"] as? String == "permanent")

            let chapters = try #require(status["chapters"] as? [[String: Any]])
            #expect(chapters.map { $0["number"] as? Int } == [1, 2, 3])
            #expect(chapters.map { $0["stage"] as? String } == ["done", "transcribing", "failed"])
            #expect(chapters.map { $0["percent"] as? Double } == [100, 50, 50])
            #expect(chapters.map { $0["attempts"] as? Int } == [3, 4, 5])

            let text = try await database.steno(["status", String(moby.mediaID)])
            #expect(text.status == 0)
            #expect(text.standardOutput.contains("media \(moby.mediaID): Moby Dick"))
            #expect(text.standardOutput.contains("transcribing, 62.5%"))
            #expect(text.standardOutput.contains("1 of 3 done, 1 failed"))
            #expect(text.standardOutput.contains("$0.05 so far, about $0.08 in all"))
            #expect(text.standardOutput.contains("chunk 1 failed: HTTP 415: unsupported audio format (fix what the backend objects to, then `steno retry`)"))
            #expect(text.standardOutput.contains("The Spouter-Inn"))
            await client.shutdown()
        }
    }

    @Test("status shows a quarantined job as a hold that names the evidence, not as a retry, in text and JSON")
    func quarantinedHold() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            try await TestMediaBuilder.insertWorker(client, id: "w-live")
            let reason = "quarantined, runs alone after 2 s: its worker's process crashed twice while running it (SIGSEGV ×2); it fails at 4 such deaths"
            let job = try await TestMediaBuilder.insertJob(
                client, kind: "chunk", state: "queued", mediaID: media.mediaID, attempts: 1, errorClass: "lost_lease", errorMessage: reason)
            try await client.query("UPDATE jobs SET run_at = now() + interval '90 seconds', runs_alone = true, crash_rescues = 2 WHERE id = \(job)")

            let text = try await database.steno(["status", String(media.mediaID)])
            #expect(text.status == 0, "\(text.standardError)")
            #expect(text.standardOutput.contains("1 job quarantined (\(reason))"), "\(text.standardOutput)")
            #expect(!text.standardOutput.contains("waiting to retry"), "a quarantined job is not a retry: \(text.standardOutput)")
            let json = try JSONOf.object(try await database.steno(["status", String(media.mediaID), "--json"]).standardOutput)
            let holds = try #require(json["holds"] as? [[String: Any]])
            #expect(holds.compactMap { $0["kind"] as? String } == ["quarantined"])
            await client.shutdown()
        }
    }

    @Test("status says why a media is not moving: a paused backend and jobs waiting to retry, in text and JSON")
    func holds() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            try await TestMediaBuilder.insertWorker(
                client, id: "w-paused", status: "paused", pausedBackendsJSON: #"{"primary": "2099-01-01T00:00:00Z"}"#)
            try await client.query("UPDATE workers SET status_message = 'HTTP 401: Incorrect API key provided' WHERE id = 'w-paused'")
            // A chunk job that failed twice and waits for its third attempt.
            let job = try await TestMediaBuilder.insertJob(
                client, kind: "chunk", state: "queued", mediaID: media.mediaID, attempts: 2, errorClass: "transient",
                errorMessage: "HTTP 503: backend busy")
            try await client.query("UPDATE jobs SET run_at = now() + interval '90 seconds' WHERE id = \(job)")

            let text = try await database.steno(["status", String(media.mediaID)])
            #expect(text.status == 0, "\(text.standardError)")
            #expect(text.standardOutput.contains("chunk jobs are paused until 2099-01-01T00:00:00Z: backend primary refused the configuration"), "\(text.standardOutput)")
            #expect(text.standardOutput.contains("HTTP 401: Incorrect API key provided"))
            #expect(text.standardOutput.contains("waiting to retry after failing (attempt 2 of"), "\(text.standardOutput)")
            #expect(text.standardOutput.contains("last error: HTTP 503: backend busy"))

            let json = try JSONOf.object(try await database.steno(["status", String(media.mediaID), "--json"]).standardOutput)
            let holds = try #require(json["holds"] as? [[String: Any]])
            #expect(holds.compactMap { $0["kind"] as? String } == ["backend_paused", "waiting_to_retry"])
            await client.shutdown()
        }
    }

    @Test("status without an id: counts by state and the media in progress; stages derived from chapter states")
    func statusOverview() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let moby = try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            try await TestMediaBuilder.insert(Library.succeeded(), into: client)
            let planning = try await TestMediaBuilder.insert(
                .init("/media/new.mp3", state: "transcribing", chapters: [.init(nil, 0, 60, state: "planning")]), into: client)
            let merging = try await TestMediaBuilder.insert(
                .init("/media/merge.mp3", state: "transcribing", chapters: [
                    .init(nil, 0, 60, state: "merging", chunks: [.init(0, 60)]),
                ]), into: client)
            let result = try await database.steno(["status", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let overview = try JSONOf.object(result.standardOutput)
            let counts = try #require(overview["counts_by_state"] as? [String: Int])
            #expect(counts["transcribing"] == 3)
            #expect(counts["succeeded"] == 1)
            let active = try #require(overview["active"] as? [[String: Any]])
            let stages = Dictionary(uniqueKeysWithValues: active.map { (($0["media_id"] as? NSNumber)?.int64Value ?? 0, $0["stage"] as? String) })
            #expect(stages == [moby.mediaID: "transcribing", planning.mediaID: "extracting", merging.mediaID: "merging"])

            let text = try await database.steno(["status"])
            #expect(text.standardOutput.contains("media: 0 queued, 0 probing, 3 transcribing, 1 succeeded, 0 failed, 0 cancelled"))
            #expect(text.standardOutput.contains("Moby Dick"))
            #expect(!text.standardOutput.contains("A Talk"), "finished media are not in progress")
            await client.shutdown()
        }
    }

    @Test("status of an unknown id exits 2; a malformed id is a usage error")
    func statusBadID() async throws {
        try await TestDatabase.with { database in
            let unknown = try await database.steno(["status", "424242"])
            #expect(unknown.status == 2)
            #expect(unknown.standardError.contains("there is no media 424242"))
            let malformed = try await database.steno(["status", "abc"])
            #expect(malformed.status == 64)
            #expect(malformed.standardError.contains("abc"))
            let negative = try await database.steno(["status", "0"])
            #expect(negative.status == 64)
            #expect(negative.standardError.contains("positive"))
        }
    }

    @Test("list filters by state and age, and pages with --limit/--offset and --after")
    func list() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            var ids: [Int64] = []
            for index in 0..<5 {
                ids.append(try await TestMediaBuilder.insert(Library.succeeded(source: "/media/\(index).mp3"), into: client).mediaID)
            }
            let failed = try await TestMediaBuilder.insert(Library.failedAtProbe(), into: client).mediaID
            let old = try await TestMediaBuilder.insert(.init("/media/old.mp3", state: "queued", createdAgo: 10 * 86400), into: client).mediaID

            let page1 = try JSONOf.object(try await database.steno(["list", "--state", "succeeded", "--limit", "2", "--json"]).standardOutput)
            let firstIDs = (page1["media"] as? [[String: Any]])?.compactMap { ($0["media_id"] as? NSNumber)?.int64Value }
            #expect(firstIDs == [ids[4], ids[3]])
            let cursor = try #require((page1["next_after"] as? NSNumber)?.int64Value)
            #expect(cursor == ids[3])
            let page2 = try JSONOf.object(
                try await database.steno(["list", "--state", "succeeded", "--limit", "2", "--after", String(cursor), "--json"]).standardOutput)
            #expect((page2["media"] as? [[String: Any]])?.compactMap { ($0["media_id"] as? NSNumber)?.int64Value } == [ids[2], ids[1]])
            let offset = try JSONOf.object(try await database.steno(["list", "--state", "succeeded", "--limit", "2", "--offset", "4", "--json"]).standardOutput)
            let last = try #require(offset["media"] as? [[String: Any]])
            #expect(last.compactMap { ($0["media_id"] as? NSNumber)?.int64Value } == [ids[0]])
            #expect(offset["next_after"] == nil || offset["next_after"] is NSNull)

            let failedOrQueued = try JSONOf.object(try await database.steno(["list", "--state", "failed,active", "--json"]).standardOutput)
            #expect((failedOrQueued["media"] as? [[String: Any]])?.compactMap { ($0["media_id"] as? NSNumber)?.int64Value } == [old, failed])
            let recent = try JSONOf.object(try await database.steno(["list", "--since", "2d", "--json"]).standardOutput)
            #expect((recent["media"] as? [[String: Any]])?.count == 6, "the 10-day-old media is left out")

            let text = try await database.steno(["list", "--limit", "3"])
            #expect(text.status == 0)
            #expect(text.standardOutput.contains("More: steno list --after"))
            await client.shutdown()
        }
    }

    @Test("list refuses an unknown state, an unreadable --since and an out-of-range limit", arguments: [
        (["--state", "done"], 2, "not a media state"),
        (["--since", "yesterday"], 2, "neither a span nor a date"),
        (["--limit", "0"], 64, #"--limit must be a whole number from 1 to 1000, not "0": give it one, or leave it out"#),
        (["--since", "99999999999d"], 2, "neither a span nor a date"),
        (["--since", "infd"], 2, "neither a span nor a date"),
        (["--since", "nanh"], 2, "neither a span nor a date"),
    ])
    func listBadInput(arguments: [String], status: Int32, message: String) async throws {
        try await TestDatabase.with { database in
            let result = try await database.steno(["list"] + arguments)
            #expect(result.status == status)
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }
}

@Suite("steno wait")
struct WaitCommandTests {
    @Test("refuses a timeout or poll interval that is not a finite number in range, without a backtrace", arguments: [
        ["--timeout", "1e308"], ["--timeout", "inf"], ["--timeout", "nan"], ["--timeout", "-1"],
        ["--poll-interval", "inf"], ["--poll-interval", "nan"], ["--poll-interval", "0"], ["--poll-interval", "1e300"],
    ])
    func waitBadNumbers(arguments: [String]) async throws {
        try await TestDatabase.with { database in
            let result = try await database.steno(["wait", "1"] + arguments)
            #expect(result.status == 64, "\(result.standardError)")
            #expect(result.standardError.contains(arguments[0]), "\(result.standardError)")
            #expect(!result.standardError.contains("Stack dump") && !result.standardError.contains("Fatal error"))
        }
    }

    @Test("exits 0 for done, 5 for failed, 6 for cancelled, with a line per media when not on a terminal")
    func finishedStates() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let done = try await TestMediaBuilder.insert(Library.succeeded(), into: client).mediaID
            let failed = try await TestMediaBuilder.insert(Library.failedAtProbe(), into: client).mediaID
            let cancelled = try await TestMediaBuilder.insert(.init("/media/c.mp3", state: "cancelled"), into: client).mediaID

            let ok = try await database.steno(["wait", String(done)])
            #expect(ok.status == 0, "\(ok.standardError)")
            #expect(ok.standardOutput == "media \(done) done 100%\n")

            let bad = try await database.steno(["wait", String(done), String(failed), String(cancelled)])
            #expect(bad.status == 5, "failure wins over cancel")
            #expect(bad.standardOutput.contains("media \(failed) failed 0%: no audio stream in the file (repair or replace the recording"))
            #expect(!bad.standardOutput.contains("cannot be read"), "no generic cause in front of the stored one")

            let stopped = try await database.steno(["wait", String(cancelled), "--json"])
            #expect(stopped.status == 6)
            let outcome = try JSONOf.object(stopped.standardOutput)
            #expect((outcome["media"] as? [[String: Any]])?.first?["state"] as? String == "cancelled")

            let unknown = try await database.steno(["wait", String(done), "999999"])
            #expect(unknown.status == 2)
            #expect(unknown.standardError.contains("there is no media 999999"))
            await client.shutdown()
        }
    }

    @Test("wakes on NOTIFY steno_media long before its poll interval, and exits 0")
    func wakesOnNotify() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(
                .init("/media/live.mp3", state: "transcribing", chapters: [.init(nil, 0, 60, state: "transcribing", chunks: [.init(0, 60, state: "running")])]),
                into: client)
            // A poll interval and a timeout longer than the suite's time limit: only the
            // notification can end the wait with exit 0.
            async let waited = database.steno(["wait", String(media.mediaID), "--poll-interval", "3600", "--timeout", "7200"])
            // Finish the media only once the command listens, so that only the notification can wake it.
            try await Self.waitForListener(client)
            try await client.withTransaction { connection in
                try await connection.query("UPDATE chunks SET state = 'succeeded', finished_at = now() WHERE media_id = \(media.mediaID)")
                try await connection.query("UPDATE chapters SET state = 'succeeded', finished_at = now() WHERE media_id = \(media.mediaID)")
                try await connection.query("UPDATE media SET state = 'succeeded', finished_at = now() WHERE id = \(media.mediaID)")
                try await connection.query("SELECT pg_notify('steno_media', \(String(media.mediaID)))")
            }
            let result = try await waited
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasSuffix("media \(media.mediaID) done 100%\n"))
            await client.shutdown()
        }
    }

    @Test("--timeout exits 7 while the media is still being worked on; a deleted media counts as cancelled")
    func timeoutAndDeleted() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let media = try await TestMediaBuilder.insert(.init("/media/slow.mp3", state: "probing"), into: client)
            let result = try await database.steno(["wait", String(media.mediaID), "--timeout", "1", "--poll-interval", "0.2"])
            #expect(result.status == 7)
            #expect(result.standardError.contains("timed out"))
            #expect(result.standardOutput.hasPrefix("media \(media.mediaID) probing"), "the progress line is printed as soon as it is read")

            async let waited = database.steno(["wait", String(media.mediaID), "--timeout", "60"])
            // `steno wait` listens after it has read the media once: deleting earlier would find
            // no media to wait for (exit 2), which a loaded machine made happen after a fixed 2 s.
            try await Self.waitForListener(client)
            let deleted = try await database.steno(["delete", String(media.mediaID)])
            #expect(deleted.status == 0)
            let afterDelete = try await waited
            #expect(afterDelete.status == 6)
            #expect(afterDelete.standardOutput.contains("media \(media.mediaID) deleted"))
            await client.shutdown()
        }
    }

    /// Returns once a session of this database has run `LISTEN` (the `steno wait` under test).
    static func waitForListener(_ client: PostgresClient) async throws {
        try await poll(until: {
            try await client.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'"
            ).single().decode("n", as: Int.self) > 0
        }, "steno wait listening")
    }
}
