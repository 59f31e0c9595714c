import Foundation
import StenoCore
import StenoPostgres

/// The handlers' reads and writes of media, chapters, chunks and segments.
///
/// Every write that finishes a job runs in one transaction with the fenced update of the job
/// itself: when the lease was lost meanwhile, the whole transaction rolls back, so a job run
/// twice (or rescued half-way) leaves exactly one copy of every row.
public struct WorkStore: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) {
        self.client = client
    }

    /// Marks the job succeeded on `connection`, inside the caller's transaction; throws
    /// `leaseLost` (rolling the transaction back) when another worker holds it now.
    func complete(_ lease: JobLease, on connection: PostgresConnection) async throws {
        try await finish(lease, state: .succeeded, outcome: .succeeded, failure: nil, on: connection)
    }

    /// Completes a job that had nothing left to do.
    func completeOnly(_ lease: JobLease) async throws {
        try await client.withTransaction { connection in
            try await complete(lease, on: connection)
        }
    }

    /// Ends the job for good, failed or cancelled, inside the caller's transaction.
    func finish(
        _ lease: JobLease, state: JobState, outcome: JobAttempt.Outcome, failure: JobStore.Failure?,
        on connection: PostgresConnection
    ) async throws {
        let held = try await JobStore.finish(lease, state: state, outcome: outcome, failure: failure, on: connection)
        guard held else {
            throw WorkerError(.leaseLost, .lostLease, "the lease of \(lease) was lost; nothing was written", jobID: lease.jobID)
        }
    }

    static func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func decodeJSON<Value: Decodable>(_ type: Value.Type, _ text: String?) throws -> Value? {
        guard let text else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw WorkerError(.malformedRow, .internal, "a stored \(Value.self) has an unexpected shape; is every process running the same Steno version?")
        }
    }
}
