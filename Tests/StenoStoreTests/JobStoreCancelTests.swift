import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

@Suite("JobStore: cancel")
struct JobStoreCancelTests {
    @Test("cancel: queued jobs end at once; running ones get the flag, and their worker a NOTIFY")
    func cancelQueuedAndRunning() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let mediaID = try await TestData.insertMedia(client)
            let otherMedia = try await TestData.insertMedia(client, source: "/media/other.mp3")
            let ids = try await store.enqueue((0..<4).map { _ in NewJob(kind: .chunk, mediaID: mediaID) })
            let running = try await store.claim(limit: 2, worker: "worker-a", lease: .seconds(60))
            #expect(running.map(\.id) == Array(ids.prefix(2)))
            // Enqueued after the claim: queued beside the media's, it would interleave with them.
            let untouched = try await store.enqueue(NewJob(kind: .chunk, mediaID: otherMedia))

            let listener = try PostgresListener(configuration: database.configuration, channels: [JobStore.Channel.cancel])
            var events = try await listener.events(pollInterval: .milliseconds(100)).makeAsyncIterator()

            let result = try await store.cancel(.media(mediaID), reason: "operator asked")
            #expect(result == JobStore.CancelResult(cancelledQueued: 2, flaggedRunning: 2))

            guard case .notification(let notification) = try await events.next() else {
                Issue.record("expected a cancel notification")
                return
            }
            #expect(notification.payload == "worker-a")

            for id in ids.suffix(2) {
                #expect(try await store.job(id)?.state == .cancelled)
            }
            let beats = try await store.heartbeat(running.compactMap(\.lease), extendBy: .seconds(60))
            #expect(beats.values.allSatisfy { $0 == .held(cancelRequested: true) })
            for lease in running.compactMap(\.lease) {
                #expect(try await store.markCancelled(lease))
                #expect(try await store.job(lease.jobID)?.state == .cancelled)
            }
            #expect(try await store.job(untouched)?.state == .queued)
            #expect(try await store.claim(limit: 10, worker: "worker-b", lease: .seconds(60)).map(\.id) == [untouched])

            let again = try await store.cancel(.media(mediaID))
            #expect(again == JobStore.CancelResult(cancelledQueued: 0, flaggedRunning: 0), "cancel is idempotent")
            await client.shutdown()
        }
    }

    @Test("a flagged job that the worker asks to retry, or that is rescued, ends cancelled")
    func cancelWinsOverRetryAndRescue() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let clock = ManualClock(date: Date())
            let store = JobStore(client: client, time: .given(by: clock))
            let first = try await store.enqueue(NewJob(kind: .chunk))
            let second = try await store.enqueue(NewJob(kind: .chunk))
            let leases = try await store.claim(limit: 2, worker: "w", lease: .milliseconds(300)).compactMap(\.lease)
            try await store.cancel(.jobs([first, second]))

            let firstLease = try #require(leases.first { $0.jobID == first })
            #expect(try await store.retryLater(firstLease, after: .seconds(1), .init(.transient, "503")) == .cancelled)

            clock.advance(by: .milliseconds(400))
            #expect(try await store.rescueExpired().map(\.state) == [.cancelled])
            #expect(try await store.job(second)?.state == .cancelled)
            await client.shutdown()
        }
    }

    @Test("deleting a media removes its jobs and their attempts with it")
    func deleteCascades() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let store = JobStore(client: client)
            let mediaID = try await TestData.insertMedia(client)
            let chapterID = try await TestData.insertChapter(client, mediaID: mediaID, index: 0)
            _ = try await store.enqueue([NewJob(kind: .media, mediaID: mediaID), NewJob(kind: .chapter, mediaID: mediaID, chapterID: chapterID)])
            _ = try await store.claim(limit: 2, worker: "w", lease: .seconds(30))
            try await client.query("DELETE FROM media WHERE id = \(mediaID)")
            let left = try await client.query(
                "SELECT (SELECT count(*) FROM jobs) + (SELECT count(*) FROM job_attempts) + (SELECT count(*) FROM chapters) AS n"
            ).single().decode("n", as: Int.self)
            #expect(left == 0)
            await client.shutdown()
        }
    }
}
