import Foundation
import StenoCore
public import StenoPostgres

extension JobStore {
    /// Which jobs to cancel.
    public enum CancelScope: Sendable, Equatable {
        case jobs([Int64])
        case media(Int64)
        case chapter(Int64)

        /// The scope as a condition on `jobs`.
        fileprivate var condition: PostgresQuery {
            switch self {
            case .jobs(let ids): "id = ANY(\(ids)::bigint[])"
            case .media(let id): "media_id = \(id)"
            case .chapter(let id): "chapter_id = \(id)"
            }
        }
    }

    /// What a cancel did.
    public struct CancelResult: Sendable, Equatable {
        /// Queued jobs, now `cancelled`.
        public var cancelledQueued: Int
        /// Running jobs whose flag was set; their workers stop them and mark them `cancelled`.
        public var flaggedRunning: Int

        public init(cancelledQueued: Int, flaggedRunning: Int) {
            self.cancelledQueued = cancelledQueued
            self.flaggedRunning = flaggedRunning
        }
    }

    /// Cancels queued jobs at once and flags running ones, notifying each worker that holds one
    /// on `steno_cancel` (payload: the worker's id) so that it checks its flags without waiting
    /// for its next heartbeat.
    @discardableResult
    public func cancel(_ scope: CancelScope, reason: String = "cancelled by request") async throws -> CancelResult {
        try await client.withConnection { try await Self.cancel(scope, reason: reason, on: $0) }
    }

    /// `cancel(_:reason:)` on `connection`, inside the caller's transaction: the notifications
    /// go out when it commits.
    public static func cancel(_ scope: CancelScope, reason: String, on connection: PostgresConnection) async throws -> CancelResult {
        let row = try await connection.query(
            """
            WITH target AS (
                SELECT id, state FROM jobs
                WHERE \(scope.condition) AND state IN (\(literals: [JobState.queued, .running]))
                FOR UPDATE
            ), cancelled AS (
                UPDATE jobs j
                SET state = \(literal: JobState.cancelled), cancel_requested = true, finished_at = now(), updated_at = now(),
                    error_class = \(literal: FailureClass.cancelled), error_message = \(reason)
                FROM target t WHERE j.id = t.id AND t.state = \(literal: JobState.queued)
                RETURNING j.id
            ), flagged AS (
                UPDATE jobs j
                SET cancel_requested = true, updated_at = now(), error_message = \(reason)
                FROM target t WHERE j.id = t.id AND t.state = \(literal: JobState.running) AND NOT j.cancel_requested
                RETURNING j.id, j.lease_owner
            ), notified AS (
                SELECT pg_notify(\(Channel.cancel), owner) FROM (SELECT DISTINCT lease_owner AS owner FROM flagged) AS owners
            )
            SELECT (SELECT count(*) FROM cancelled) AS cancelled,
                   (SELECT count(*) FROM flagged) AS flagged,
                   (SELECT count(*) FROM notified) AS notified
            """
        ).single()
        return CancelResult(cancelledQueued: try row.decode("cancelled"), flaggedRunning: try row.decode("flagged"))
    }
}
