import Foundation
import StenoCore
import StenoPostgres
import StenoTestSupport
import StenoWorker
import Testing

/// Broken and hostile recordings through a real worker: each media ends, with a reason a person
/// can act on, and nothing is left half-made (no job or chunk running, no chapter unfinished).
@Suite("bad-input catalogue: the worker", .serialized, .timeLimit(.minutes(10)))
struct BadInputCatalogueTests {
    @Test("every source of the catalogue ends its media, transcribed or failed with a reason naming the problem, leaving nothing running")
    func catalogueThroughAWorker() async throws {
        let catalogue = try BadInputCatalogue()
        defer { catalogue.close() }
        try await TestDatabase.with { database in
            let client = database.client()
            defer { Task { await client.shutdown() } }
            let db = WorkerTestDatabase(client: client)
            try await RunningASRBackend.with { asr in
                try await RunningWorker.with(database: database, backendURL: asr.baseURL, configure: { $0.sourceTimeout = .seconds(2) }) { _ in
                    var ids: [(BadSource, Int64)] = []
                    // The schema itself refuses a blank source (a check constraint), so no worker sees one.
                    for bad in catalogue.sources where !bad.source.isEmpty { ids.append((bad, try await db.enqueue(bad.source))) }
                    // One bound for the whole catalogue, not one per media: the queue hands out jobs
                    // by priority, then age, so a media's merge waits behind the jobs of every media
                    // enqueued with it, and a media can end only after most of the catalogue has been
                    // worked through (beside two busy cores, minutes: 120 s for media 8 alone was
                    // too short). It bounds a hang; it measures nothing.
                    let clock = ContinuousClock()
                    let deadline = clock.now + .seconds(540)
                    for (bad, id) in ids {
                        let state = try await db.waitForMedia(
                            id, in: ["succeeded", "failed", "cancelled"], timeout: max(.seconds(1), deadline - clock.now))
                        try await db.waitForQuietJobs(id)
                        let ended = try await db.mediaState(id)
                        let reason = ended.errorMessage ?? ""
                        #expect(state == (bad.readable ? "succeeded" : "failed"), "\(bad): \(state): \(reason)")
                        if state == "failed" {
                            #expect(ended.errorClass != nil, "\(bad): failed without a class")
                            #expect(!reason.isEmpty, "\(bad): failed without a reason")
                            #expect(!reason.contains("backend"), "\(bad): a media problem blamed on the backend: \(reason)")
                            for word in bad.mentions {
                                #expect(reason.lowercased().contains(word), "\(bad): the reason does not mention \(word): \(reason)")
                            }
                            for text in ["SQLSTATE", "Error Domain=", "NSCocoaErrorDomain"] {
                                #expect(!reason.contains(text), "\(bad): \(reason)")
                            }
                        }
                        if let secret = bad.secret { #expect(!reason.contains(secret), "\(bad): the reason shows the URL's password") }
                        let running = try await db.count(
                            """
                            SELECT (SELECT count(*) FROM jobs WHERE media_id = $1 AND state IN ('queued', 'running'))
                                 + (SELECT count(*) FROM chunks WHERE media_id = $1 AND state IN ('queued', 'running'))
                                 + (SELECT count(*) FROM chapters WHERE media_id = $1 AND state NOT IN ('succeeded', 'failed', 'cancelled'))
                                 AS count
                            """, id)
                        #expect(running == 0, "\(bad): \(running) jobs, chunks or chapters left unfinished")
                    }
                    // A source's 4xx is its final answer: one attempt, no retries.
                    for (bad, id) in ids where bad.mentions.contains("404") || bad.mentions.contains("403") {
                        let attempts = try await db.count(
                            "SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE j.media_id = $1", id)
                        #expect(attempts == 1, "\(bad): a 4xx from the source was retried \(attempts - 1) times")
                    }
                }
            }
        }
    }
}
