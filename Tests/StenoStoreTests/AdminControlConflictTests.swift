import Foundation
import StenoCore
import StenoInfrastructure
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// An operator's control locks a media, then its chapters and chunks; a worker ending a chunk
/// job locks its chunk, then the media it moves on. PostgreSQL breaks the cycle by failing one
/// of them, and the control must then simply run again (a cancel mid-upload failed in CI with
/// `deadlock detected`).
@Suite("An operator's control against a worker's write that locks in the other order")
struct AdminControlConflictTests {
    @Test("a cancel chosen as the deadlock victim is run again, and the media is cancelled")
    func cancelOutlivesADeadlock() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 4)
            let worker = database.client(maxConnections: 1)
            defer { Task { await client.shutdown(); await worker.shutdown() } }
            let inserted = try await TestMediaBuilder.insert(
                .init("/books/locked.m4b", state: "transcribing", chapters: [
                    .init("One", 0, 600, state: "transcribing", chunks: [.init(0, 300, state: "running"), .init(300, 600, state: "queued")]),
                ]), into: client)
            let chunk = inserted.chunkIDs[0][0]
            let holding = Latch()
            let reach = Latch()
            // The worker's order: its chunk first, then, once the cancel waits for that chunk, the
            // media the cancel holds.
            let workerWrite = Task {
                try await worker.withTransaction { connection in
                    try await connection.query("UPDATE chunks SET updated_at = now() WHERE id = \(chunk)")
                    holding.open()
                    _ = await reach.wait()
                    try await connection.query("UPDATE media SET updated_at = now() WHERE id = \(inserted.mediaID)")
                }
            }
            _ = await holding.wait()
            let cancel = Task { try await AdminStore(client: client).cancel(mediaID: inserted.mediaID) }
            try await poll(until: {
                try await client.query(
                    "SELECT count(*) AS waits FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                ).single().decode("waits", as: Int.self) > 0
            }, "the cancel waiting for the worker's chunk")
            reach.open()
            // The cancel waited first, so its deadlock check runs first and it is the one failed.
            _ = await workerWrite.result
            let outcome = try await cancel.value
            #expect(outcome.mediaState == .cancelled && !outcome.alreadyFinished)
            let states = try await client.query(
                "SELECT (SELECT state FROM media WHERE id = \(inserted.mediaID)) AS media, (SELECT state FROM chunks WHERE id = \(chunk)) AS chunk"
            ).single()
            #expect(try states.decode("media", as: String.self) == "cancelled")
            #expect(try states.decode("chunk", as: String.self) == "cancelled")
        }
    }
}
