import Foundation
public import StenoCore
import StenoInfrastructure
import StenoPostgres

extension WorkStore {
    /// What the media job reads.
    public struct MediaRecord: Sendable {
        public var id: Int64
        public var source: String
        public var state: MediaState
        public var priority: JobPriority
        /// 0-based chapter indexes to transcribe; nil for all.
        public var chapterSelection: [Int]?
        /// What the store held when the media was enqueued, for a source in the store.
        public var sourceObject: SourceObject? = nil
    }

    /// What a probe found, as the media row stores it.
    public struct ProbeSummary: Sendable {
        public var container: String
        public var audioCodec: String
        public var sampleRate: Int
        public var channels: Int
        public var duration: Double?

        public init(container: String, audioCodec: String, sampleRate: Int, channels: Int, duration: Double?) {
            self.container = container
            self.audioCodec = audioCodec
            self.sampleRate = sampleRate
            self.channels = channels
            self.duration = duration
        }
    }

    public func media(_ id: Int64) async throws -> MediaRecord? {
        guard let row = try await client.query(
            "SELECT id, source, state, priority, chapter_selection, \(Self.sourceObjectColumns) FROM media m WHERE id = \(id)"
        ).first else { return nil }
        return MediaRecord(
            id: try row.decode("id"), source: try row.decode("source"), state: try row.decode("state"),
            priority: try row.decode("priority"), chapterSelection: try row.decode("chapter_selection"),
            sourceObject: try Self.sourceObject(row))
    }

    /// The columns `sourceObject(_:)` reads, of the media row named `m`.
    static let sourceObjectColumns: PostgresQuery = "m.source_bytes, m.source_etag, m.source_sha256"

    /// The recording's object as stored, from a row with `sourceObjectColumns`.
    static func sourceObject(_ row: PostgresRow) throws -> SourceObject? {
        guard let size: Int64 = try row.decode("source_bytes") else { return nil }
        return SourceObject(size: size, etag: try row.decode("source_etag"), sha256: try row.decode("source_sha256"))
    }

    /// `queued` -> `probing`; other states stay (a retry of a media job after a crash).
    public func markProbing(_ mediaID: Int64) async throws {
        try await client.query(
            "UPDATE media SET state = \(literal: MediaState.probing), updated_at = now() WHERE id = \(mediaID) AND state = \(literal: MediaState.queued)")
    }

    /// Stores the probe, the selected chapters and one chapter job each, moves the media to
    /// `transcribing` and completes the media job, all at once. Chapters and jobs that exist
    /// already (a second run) are kept, not doubled.
    public func storeProbe(
        _ lease: JobLease, media: MediaRecord, summary: ProbeSummary, chapters: [Chapter]
    ) async throws {
        try await client.withTransaction { connection in
            try await connection.query(
                """
                UPDATE media
                SET container = \(summary.container), audio_codec = \(summary.audioCodec), sample_rate = \(summary.sampleRate), channels = \(summary.channels), duration_seconds = \(summary.duration),
                    state = CASE WHEN state IN (\(literals: [MediaState.queued, .probing])) THEN \(literal: MediaState.transcribing) ELSE state END,
                    updated_at = now()
                WHERE id = \(media.id)
                """)
            try await connection.query(
                """
                INSERT INTO chapters (media_id, index, title, start_seconds, end_seconds)
                SELECT \(media.id), index, title, start_seconds, end_seconds
                FROM unnest(\(chapters.map(\.index))::integer[], \(chapters.map(\.title))::text[], \(chapters.map(\.start.seconds))::float8[], \(chapters.map(\.end.seconds))::float8[]) AS i(index, title, start_seconds, end_seconds)
                ON CONFLICT (media_id, index) DO NOTHING
                """)
            // A separate statement, so that it sees the chapters the one above inserted.
            try await connection.query(
                """
                INSERT INTO jobs (kind, priority, media_id, chapter_id, fair_key)
                SELECT \(literal: JobKind.chapter), \(media.priority.rawValue), c.media_id, c.id, c.index
                FROM chapters c
                WHERE c.media_id = \(media.id) AND c.index = ANY(\(chapters.map(\.index))::integer[]) AND c.state = \(literal: ChapterState.queued)
                  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.chapter_id = c.id AND j.kind = \(literal: JobKind.chapter))
                ORDER BY c.index
                """)
            try await complete(lease, on: connection)
        }
    }
}
