import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

@Suite("steno focus, cancel, retry and delete")
struct ControlCommandTests {
    static func jobPriorities(_ client: PostgresClient, chapterID: Int64) async throws -> [Int] {
        try await client.query("SELECT priority FROM jobs WHERE chapter_id = \(chapterID) AND state IN ('queued', 'running') ORDER BY id")
            .map { try $0.decode("priority", as: Int.self) }
    }

    static func threeChapterBook() -> TestMediaBuilder.Media {
        var chapters: [TestMediaBuilder.Chapter] = []
        for index in 0..<3 {
            let start = Double(index) * 100
            let chunks = [
                TestMediaBuilder.Chunk(start, start + 50, state: "queued"),
                TestMediaBuilder.Chunk(start + 50, start + 100, state: "queued"),
            ]
            chapters.append(TestMediaBuilder.Chapter("Part \(index + 1)", start, start + 100, state: "transcribing", chunks: chunks))
        }
        return TestMediaBuilder.Media("/media/book.m4b", state: "transcribing", chapters: chapters)
    }

    @Test("focus: chapter N high, N+1 medium, others low; jobs created later follow; moving the focus resets the old chapter")
    func focus() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let book = try await TestMediaBuilder.insert(Self.threeChapterBook(), into: client)
            let result = try await database.steno(["focus", String(book.mediaID), "--chapter", "2", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let outcome = try JSONOf.object(result.standardOutput)
            #expect(outcome["high_jobs"] as? Int == 2)
            #expect(outcome["medium_jobs"] as? Int == 2)
            #expect(outcome["low_jobs"] as? Int == 2)
            #expect(try await Self.jobPriorities(client, chapterID: book.chapterIDs[0]) == [0, 0])
            #expect(try await Self.jobPriorities(client, chapterID: book.chapterIDs[1]) == [2, 2])
            #expect(try await Self.jobPriorities(client, chapterID: book.chapterIDs[2]) == [1, 1])

            // A merge job the worker enqueues afterwards with the media's priority gets the focus priority.
            let store = JobStore(client: client)
            let merge = try await store.enqueue(NewJob(kind: .merge, priority: .low, mediaID: book.mediaID, chapterID: book.chapterIDs[1]))
            #expect(try await store.job(merge)?.priority == .high)
            // And the claim order follows: chapter 2's work first.
            let claimed = try await store.claim(limit: 1, worker: "w", lease: .seconds(30))
            #expect(claimed.first?.chapterID == book.chapterIDs[1])

            let moved = try await database.steno(["focus", String(book.mediaID), "--chapter", "3"])
            #expect(moved.status == 0, "\(moved.standardError)")
            #expect(moved.standardOutput.contains("listening at chapter 3"))
            #expect(try await Self.jobPriorities(client, chapterID: book.chapterIDs[1]).allSatisfy { $0 == 0 })
            #expect(try await Self.jobPriorities(client, chapterID: book.chapterIDs[2]) == [2, 2])

            let status = try JSONOf.object(try await database.steno(["status", String(book.mediaID), "--json"]).standardOutput)
            #expect((status["media"] as? [String: Any])?["focus_chapter"] as? Int == 3)
            await client.shutdown()
        }
    }

    @Test("focus before probing is stored and applies to chapters created later; bad chapters and finished media are refused")
    func focusEdges() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let probing = try await TestMediaBuilder.insert(.init("/media/p.mp3", state: "probing"), into: client)
            let early = try await database.steno(["focus", String(probing.mediaID), "--chapter", "1"])
            #expect(early.status == 0, "\(early.standardError)")
            #expect(early.standardOutput.contains("not probed yet"))
            let chapterID = try await TestData.insertChapter(client, mediaID: probing.mediaID, index: 0)
            let job = try await JobStore(client: client).enqueue(NewJob(kind: .chapter, priority: .low, mediaID: probing.mediaID, chapterID: chapterID))
            #expect(try await JobStore(client: client).job(job)?.priority == .high)

            let book = try await TestMediaBuilder.insert(Self.threeChapterBook(), into: client)
            let missing = try await database.steno(["focus", String(book.mediaID), "--chapter", "9"])
            #expect(missing.status == 2)
            #expect(missing.standardError.contains("has no chapter 9; it has chapters 1 to 3"))
            let zero = try await database.steno(["focus", String(book.mediaID), "--chapter", "0"])
            #expect(zero.status == 64)
            let done = try await TestMediaBuilder.insert(Library.succeeded(), into: client)
            let finished = try await database.steno(["focus", String(done.mediaID), "--chapter", "1"])
            #expect(finished.status == 1)
            #expect(finished.standardError.contains("already succeeded"))
            await client.shutdown()
        }
    }

    @Test("cancel a media: queued jobs cancelled, running ones flagged with a NOTIFY to their worker, states cancelled, done chunks kept")
    func cancelMedia() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let moby = try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            try await TestMediaBuilder.insertJob(client, kind: "merge", state: "queued", chapterID: moby.chapterIDs[0], attempts: 0)
            let listener = try PostgresListener(configuration: database.configuration, channels: [JobStore.Channel.cancel])
            var events = try await listener.events(pollInterval: .milliseconds(100)).makeAsyncIterator()

            let result = try await database.steno(["cancel", String(moby.mediaID), "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let outcome = try JSONOf.object(result.standardOutput)
            #expect(outcome["cancelled_jobs"] as? Int == 1, "the merge job, which names only its chapter")
            #expect(outcome["flagged_running_jobs"] as? Int == 1)
            #expect(outcome["media_state"] as? String == "cancelled")
            guard case .notification(let notification) = try await events.next() else {
                Issue.record("expected a cancel notification")
                return
            }
            #expect(notification.payload == TestMediaBuilder.worker)

            let running = try #require(try await JobStore(client: client).job(moby.chunkJobIDs[1][1]))
            #expect(running.state == .running && running.cancelRequested)
            #expect(try await client.query("SELECT state FROM media WHERE id = \(moby.mediaID)").single().decode("state", as: String.self) == "cancelled")
            let chapterStates = try await client.query("SELECT state FROM chapters WHERE media_id = \(moby.mediaID) ORDER BY index").map { try $0.decode("state", as: String.self) }
            #expect(chapterStates == ["succeeded", "cancelled", "failed"])
            let chunkStates = try await client.query("SELECT state FROM chunks WHERE media_id = \(moby.mediaID) ORDER BY chapter_id, index").map { try $0.decode("state", as: String.self) }
            #expect(chunkStates == ["succeeded", "succeeded", "succeeded", "cancelled", "failed", "succeeded"])

            let again = try await database.steno(["cancel", String(moby.mediaID)])
            #expect(again.status == 0)
            #expect(again.standardOutput.contains("had already finished"))
            let unknown = try await database.steno(["cancel", "777"])
            #expect(unknown.status == 2)
            await client.shutdown()
        }
    }

    @Test("cancel one chapter: only its jobs; cancelling the last unfinished chapter finishes the media")
    func cancelChapter() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let book = try await TestMediaBuilder.insert(Self.threeChapterBook(), into: client)
            let result = try await database.steno(["cancel", String(book.mediaID), "--chapter", "2"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("cancelled chapter 2 of media \(book.mediaID): 2 queued job(s) cancelled"))
            #expect(try await Self.jobPriorities(client, chapterID: book.chapterIDs[1]).isEmpty)
            #expect(try await Self.jobPriorities(client, chapterID: book.chapterIDs[0]).count == 2)
            #expect(try await client.query("SELECT state FROM media WHERE id = \(book.mediaID)").single().decode("state", as: String.self) == "transcribing")

            #expect(try await database.steno(["cancel", String(book.mediaID), "--chapter", "1"]).status == 0)
            let last = try await database.steno(["cancel", String(book.mediaID), "--chapter", "3", "--json"])
            #expect(try JSONOf.object(last.standardOutput)["media_state"] as? String == "cancelled")
            let missing = try await database.steno(["cancel", String(book.mediaID), "--chapter", "4"])
            #expect(missing.status == 2)
            await client.shutdown()
        }
    }

    @Test("retry requeues failed work with a fresh attempt budget and keeps succeeded chunks; split chunks stay split")
    func retry() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            var media = Library.transcribing()
            media.state = "failed"
            media.chapters[1].state = "succeeded"
            media.chapters[1].chunks[1].state = "split"
            media.chapters[1].chunks.append(.init(200, 250))
            media.chapters[1].chunks.append(.init(250, 300))
            let moby = try await TestMediaBuilder.insert(media, into: client)
            let failedJob = moby.chunkJobIDs[2][0]

            let result = try await database.steno(["retry", String(moby.mediaID), "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let outcome = try #require(try JSONOf.array(result.standardOutput).first)
            #expect(outcome["requeued_jobs"] as? Int == 1)
            #expect(outcome["requeued_chunks"] as? Int == 1)
            #expect(outcome["media_state"] as? String == "transcribing")

            let job = try #require(try await JobStore(client: client).job(failedJob))
            #expect(job.state == .queued)
            #expect(job.attempt == 3 && job.maxAttempts == 3 + NewJob.defaultMaxAttempts, "attempt numbers keep growing; the budget is renewed")
            #expect(job.errorClass == nil)
            let splitJob = try #require(try await JobStore(client: client).job(moby.chunkJobIDs[1][1]))
            #expect(splitJob.state == .failed, "the split chunk's too-large job is not sent again")
            let chunkStates = try await client.query("SELECT state FROM chunks WHERE media_id = \(moby.mediaID) ORDER BY chapter_id, index").map { try $0.decode("state", as: String.self) }
            #expect(chunkStates == ["succeeded", "succeeded", "succeeded", "split", "succeeded", "succeeded", "queued", "succeeded"])
            let chapterStates = try await client.query("SELECT state, error_message FROM chapters WHERE media_id = \(moby.mediaID) ORDER BY index")
            #expect(try chapterStates.map { try $0.decode("state", as: String.self) } == ["succeeded", "succeeded", "transcribing"])
            #expect(try chapterStates[2].decode("error_message", as: String?.self) == nil)
            // The claim sees it: a worker picks the requeued chunk up.
            let claimed = try await JobStore(client: client).claim(limit: 10, worker: "w2", lease: .seconds(30))
            #expect(claimed.map(\.id) == [failedJob])

            let nothing = try await database.steno(["retry", String(moby.mediaID)])
            #expect(nothing.status == 0)
            #expect(nothing.standardOutput.contains("nothing failed or cancelled to retry"))
            await client.shutdown()
        }
    }

    @Test("retry --all-failed resumes every failed media, also one that failed at probe; a cancelled media resumes too")
    func retryAllFailed() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let probe = try await TestMediaBuilder.insert(Library.failedAtProbe(), into: client)
            let other = try await TestMediaBuilder.insert(Library.failedAtProbe(source: "/media/other.mp3"), into: client)
            try await TestMediaBuilder.insert(Library.succeeded(), into: client)
            let result = try await database.steno(["retry", "--all-failed"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("media \(probe.mediaID): requeued 1 job(s), 0 chunk(s); media is queued."))
            #expect(result.standardOutput.contains("media \(other.mediaID): requeued 1 job(s)"))
            #expect(try await JobStore(client: client).job(probe.mediaJobID)?.state == .queued)

            let book = try await TestMediaBuilder.insert(ControlCommandTests.threeChapterBook(), into: client)
            #expect(try await database.steno(["cancel", String(book.mediaID)]).status == 0)
            let resumed = try await database.steno(["retry", String(book.mediaID)])
            #expect(resumed.standardOutput.contains("requeued 6 job(s), 6 chunk(s); media is transcribing."), "\(resumed.standardOutput)")

            let neither = try await database.steno(["retry"])
            #expect(neither.status == 64)
            let both = try await database.steno(["retry", "1", "--all-failed"])
            #expect(both.status == 64)
            let none = try await database.steno(["retry", "--all-failed"])
            #expect(none.standardOutput.contains("No media failed"))
            await client.shutdown()
        }
    }

    @Test("retry --language gives a media that succeeded the language and requeues its chunks; a bad code, a busy media and --all-failed are refused")
    func retryInAnotherLanguage() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let talk = try await TestMediaBuilder.insert(Library.succeeded(), into: client)
            let corrected = try await database.steno(["retry", String(talk.mediaID), "--language", "de"])
            #expect(corrected.status == 0, "\(corrected.standardError)")
            #expect(corrected.standardOutput.contains("media \(talk.mediaID): language de; transcribing 1 chunk(s) again; media is transcribing."),
                    "\(corrected.standardOutput)")
            let media = try await client.query("SELECT state, language, detected_language, multilingual FROM media WHERE id = \(talk.mediaID)").single()
            #expect(try media.decode("state", as: String.self) == "transcribing")
            #expect(try media.decode("language", as: String?.self) == "de")
            #expect(try media.decode("multilingual", as: Bool.self) == false)
            let chunk = try await client.query(
                "SELECT k.state AS chunk, j.state AS job, c.state AS chapter FROM chunks k JOIN jobs j ON j.chunk_id = k.id JOIN chapters c ON c.id = k.chapter_id WHERE k.media_id = \(talk.mediaID)"
            ).single()
            #expect(try [chunk.decode("chunk", as: String.self), chunk.decode("job", as: String.self), chunk.decode("chapter", as: String.self)]
                    == ["queued", "queued", "transcribing"])

            let busy = try await database.steno(["retry", String(talk.mediaID), "--language", "fr"])
            #expect(busy.status != 0 && busy.standardError.contains("is transcribing"), "\(busy.standardError)")
            let bad = try await database.steno(["retry", String(talk.mediaID), "--language", "klingon"])
            #expect(bad.status != 0 && bad.standardError.contains("--language must be auto, multi or an ISO 639 code"), "\(bad.standardError)")
            let both = try await database.steno(["retry", "--all-failed", "--language", "de"])
            #expect(both.status == 64)
            await client.shutdown()
        }
    }

    @Test("delete flags running jobs, then removes the media and everything under it: no orphans")
    func delete() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let moby = try await TestMediaBuilder.insert(Library.transcribing(), into: client)
            let kept = try await TestMediaBuilder.insert(Library.succeeded(), into: client)
            try await TestMediaBuilder.insertJob(client, kind: "merge", state: "queued", chapterID: moby.chapterIDs[1], attempts: 0)
            let listener = try PostgresListener(configuration: database.configuration, channels: [JobStore.Channel.cancel])
            var events = try await listener.events(pollInterval: .milliseconds(100)).makeAsyncIterator()

            let result = try await database.steno(["delete", String(moby.mediaID), "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let outcome = try #require(try JSONOf.array(result.standardOutput).first)
            #expect(outcome["flagged_running_jobs"] as? Int == 1)
            #expect(outcome["chapters"] as? Int == 3)
            #expect(outcome["chunks"] as? Int == 6)
            #expect(outcome["jobs"] as? Int == 1 + 3 + 6 + 1)
            guard case .notification(let notification) = try await events.next() else {
                Issue.record("the worker holding the running job was told first")
                return
            }
            #expect(notification.payload == TestMediaBuilder.worker)

            for table in ["media WHERE id = $1", "chapters WHERE media_id = $1", "chunks WHERE media_id = $1", "segments WHERE media_id = $1",
                          "jobs WHERE media_id = $1"] {
                #expect(try await client.query("SELECT count(*) AS n FROM \(table)", [moby.mediaID]).single().decode("n", as: Int.self) == 0, "\(table)")
            }
            let orphans = try await client.query(
                """
                SELECT (SELECT count(*) FROM jobs WHERE media_id IS NULL AND chapter_id IS NULL AND chunk_id IS NULL)
                     + (SELECT count(*) FROM job_attempts a WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = a.job_id)) AS n
                """).single()
            #expect(try orphans.decode("n", as: Int.self) == 0)
            #expect(try await client.query("SELECT count(*) AS n FROM jobs WHERE media_id = \(kept.mediaID)").single().decode("n", as: Int.self) == 3)
            // A worker that still held the deleted job's lease finds nothing to finish.
            #expect(try await JobStore(client: client).complete(JobLease(jobID: moby.chunkJobIDs[1][1], owner: TestMediaBuilder.worker, attempt: 1)) == false)

            let again = try await database.steno(["delete", String(moby.mediaID)])
            #expect(again.status == 2)
            #expect(again.standardError.contains("there is no media \(moby.mediaID)"))
            await client.shutdown()
        }
    }
}
