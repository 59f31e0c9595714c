import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

@Suite("A media's attempts that did not succeed")
struct MediaAttemptsTests {
    @Test("retried and failed attempts of each job, newest first, naming their chapter and chunk; successes left out")
    func history() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 2)
            let store = AdminStore(client: client)
            let id = try await TestMediaBuilder.insert(
                .init("/books/a.m4b", state: "failed", chapters: [
                    .init("One", 0, 600, state: "failed", chunks: [
                        .init(0, 300),
                        .init(300, 600, state: "failed", attempts: 3, errorClass: "rate_limited", errorMessage: "429 too many", httpStatus: 429),
                    ]),
                ]), into: client
            ).mediaID
            let attempts = try await store.unsuccessfulAttempts(of: id)
            #expect(!attempts.isEmpty)
            #expect(attempts.allSatisfy { $0.outcome != .succeeded })
            let chunkAttempts = attempts.filter { $0.kind == .chunk }
            #expect(chunkAttempts.count == 3, "\(attempts)")
            #expect(chunkAttempts.allSatisfy { $0.chapter == 1 && $0.chunk == 2 && $0.job == "chunk 2 of chapter 1" })
            #expect(chunkAttempts.contains { $0.outcome == .failed && $0.errorClass == "rate_limited" && $0.httpStatus == 429 })
            #expect(zip(attempts, attempts.dropFirst()).allSatisfy { $0.startedAt >= $1.startedAt }, "not newest first")
            #expect(try await store.unsuccessfulAttempts(of: id, limit: 1).count == 1)
            await client.shutdown()
        }
    }
}
