import Foundation
import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// A finished media whose completion notice is still to be delivered.
    public struct PendingNotice: Sendable, Codable, Equatable {
        public var mediaID: Int64
        public var state: String
        public var title: String?
        public var source: String
        public var errorClass: String?
        public var errorMessage: String?
        public var durationSeconds: Double?
        /// The webhook came from an API client (not part of the notice's JSON).
        public var webhookFromClient = false

        enum CodingKeys: String, CodingKey {
            case mediaID = "media_id", state, title, source
            case errorClass = "error_class", errorMessage = "error_message", durationSeconds = "duration_seconds"
        }
    }

    /// Delivers the completion notice of up to `limit` finished media (succeeded or failed) that
    /// have a webhook (their own, else `defaultURL`) and were not notified yet. Each row stays
    /// locked while `deliver` runs, so no other worker sends the same notice meanwhile, and
    /// `notified_at` is set in the same transaction when `deliver` returns true: one delivery
    /// per media. `skip` lists media to leave for later (backing off after a failed delivery).
    public func deliverNotices(
        defaultURL: String?, skip: [Int64], limit: Int = 10,
        deliver: (PendingNotice, String) async -> Bool
    ) async throws -> [Int64: Bool] {
        try await client.withTransaction { connection in
            let rows = try await connection.query(
                """
                SELECT id, state, title, source, error_class, error_message, duration_seconds,
                       COALESCE(webhook_url, \(defaultURL)) AS url, webhook_url IS NOT NULL AND webhook_from_client AS from_client
                FROM media
                WHERE state IN (\(literals: [MediaState.succeeded, .failed])) AND notified_at IS NULL
                  AND COALESCE(webhook_url, \(defaultURL)) IS NOT NULL AND NOT (id = ANY(\(skip)::bigint[]))
                ORDER BY finished_at NULLS LAST, id
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
                """)
            var delivered: [Int64: Bool] = [:]
            for row in rows {
                let notice = PendingNotice(
                    mediaID: try row.decode("id"), state: try row.decode("state"), title: try row.decode("title"),
                    source: SecretRedactor.redactURLCredentials(in: try row.decode("source")), errorClass: try row.decode("error_class"),
                    errorMessage: try row.decode("error_message"), durationSeconds: try row.decode("duration_seconds"),
                    webhookFromClient: try row.decode("from_client"))
                let ok = await deliver(notice, try row.decode("url"))
                delivered[notice.mediaID] = ok
                if ok {
                    try await connection.query("UPDATE media SET notified_at = now() WHERE id = \(notice.mediaID)")
                }
            }
            return delivered
        }
    }
}
