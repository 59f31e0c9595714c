import Foundation
public import StenoCore
import StenoInfrastructure
public import StenoPostgres

extension AdminStore {
    /// A media row and its probe job, as enqueued.
    public struct EnqueuedMedia: Sendable, Equatable, Codable {
        public var mediaID: Int64
        public var jobID: Int64
        public var source: String
        public var title: String?
    }

    /// A source that is already queued or being transcribed.
    public struct ActiveDuplicate: Sendable, Equatable {
        public var mediaID: Int64
        public var source: String
        public var state: MediaState
    }

    /// Inserts each media with its `media` job, all in one transaction: all of them or none.
    /// Unless `allowDuplicates`, a source already queued or in progress fails the whole call with
    /// `duplicateSource`.
    public func enqueue(_ media: [NewMedia], allowDuplicates: Bool) async throws -> [EnqueuedMedia] {
        guard !media.isEmpty else { return [] }
        return try await client.withTransaction { connection in
            // Serialises enqueues, so that two operators adding the same folder at once cannot
            // both pass the duplicate check.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.enqueueLockKey))")
            return try await insert(media, allowDuplicates: allowDuplicates, on: connection)
        }
    }

    /// Enqueues one media unless its tenant already has one with the same idempotency key;
    /// then that one is returned and `replayed` is true. Without a key it always enqueues.
    ///
    /// `knownSpeakers` (OpenAI's `known_speaker_names[]` with the voices of their references)
    /// are stored with the media, in the same transaction: a media never exists without the
    /// voices it was sent with. A replayed request adds none.
    public func enqueueOnce(
        _ media: NewMedia, knownSpeakers: [(name: String, embedding: [Float])] = []
    ) async throws -> (media: EnqueuedMedia, replayed: Bool) {
        try await client.withTransaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.enqueueLockKey))")
            if let key = media.idempotencyKey {
                let rows = try await connection.query(
                    """
                    SELECT m.id AS media_id, j.id AS job_id, m.source, m.title FROM media m
                    LEFT JOIN LATERAL (SELECT id FROM jobs WHERE media_id = m.id AND kind = \(literal: JobKind.media) ORDER BY id LIMIT 1) j ON true
                    WHERE m.tenant = \(media.tenant) AND m.idempotency_key = \(key)
                    """)
                if let row = rows.first {
                    return (try Self.enqueued(row), true)
                }
            }
            let enqueued = try await insert([media], allowDuplicates: true, on: connection)[0]
            try await Self.addKnownSpeakers(mediaID: enqueued.mediaID, knownSpeakers, on: connection)
            return (enqueued, false)
        }
    }

    private func insert(_ media: [NewMedia], allowDuplicates: Bool, on connection: PostgresConnection) async throws -> [EnqueuedMedia] {
            if !allowDuplicates {
                let duplicates = try await activeDuplicates(of: media.map(\.source), on: connection)
                if !duplicates.isEmpty {
                    let list = duplicates.map { "\($0.source) (media \($0.mediaID), \($0.state.rawValue))" }.joined(separator: ", ")
                    throw AdminError(
                        .duplicateSource, "already queued or in progress: \(list)",
                        hint: "nothing was enqueued; pass --force to enqueue them again")
                }
            }
            let sources = media.map(\.source)
            let titles = media.map(\.title)
            let languages = media.map(\.language)
            let models = media.map(\.model)
            let priorities = media.map(\.priority.rawValue)
            let chapterSelections: [String?] = media.map { $0.chapters.storedIndexes.map { $0.postgresText } ?? nil }
            let webhookURLs = media.map(\.webhookURL)
            let prompts = media.map(\.prompt)
            let tenants = media.map(\.tenant)
            let idempotencyKeys = media.map(\.idempotencyKey)
            let webhooksFromClients = media.map(\.webhookFromClient)
            let speakerDetections = media.map(\.speakerDetection)
            let speakersMinimum = media.map(\.speakers.minimum)
            let speakersMaximum = media.map(\.speakers.maximum)
            let multilinguals = media.map(\.multilingual)
            let translations = media.map(\.translate)
            let sourceBytes = media.map(\.sourceObject?.size)
            let sourceETags = media.map(\.sourceObject?.etag)
            let sourceSHA256s = media.map(\.sourceObject?.sha256)
            let rows = try await connection.query(
                """
                WITH input AS (
                    SELECT * FROM unnest(\(sources)::text[], \(titles)::text[], \(languages)::text[], \(models)::text[],
                                         \(priorities)::smallint[], \(chapterSelections)::text[], \(webhookURLs)::text[], \(prompts)::text[],
                                         \(tenants)::text[], \(idempotencyKeys)::text[], \(webhooksFromClients)::boolean[],
                                         \(speakerDetections)::boolean[], \(speakersMinimum)::integer[], \(speakersMaximum)::integer[], \(multilinguals)::boolean[], \(translations)::boolean[],
                                         \(sourceBytes)::bigint[], \(sourceETags)::text[], \(sourceSHA256s)::text[])
                        WITH ORDINALITY AS i(source, title, language, model, priority, chapter_selection, webhook_url, prompt,
                                             tenant, idempotency_key, webhook_from_client, speaker_detection, speakers_min, speakers_max,
                                             multilingual, translate, source_bytes, source_etag, source_sha256, position)
                ), inserted AS (
                    INSERT INTO media (source, title, language, model, priority, chapter_selection, webhook_url, prompt,
                                       tenant, idempotency_key, webhook_from_client, speaker_detection, speakers_min, speakers_max, multilingual, translate,
                                       source_bytes, source_etag, source_sha256)
                    SELECT source, title, language, model, priority, chapter_selection::integer[], webhook_url, prompt,
                           tenant, idempotency_key, webhook_from_client, speaker_detection, speakers_min, speakers_max, multilingual, translate,
                           source_bytes, source_etag, source_sha256
                    FROM input ORDER BY position
                    RETURNING id, source, title, priority
                ), queued AS (
                    INSERT INTO jobs (kind, priority, media_id)
                    SELECT \(literal: JobKind.media), priority, id FROM inserted
                    RETURNING id, media_id
                )
                SELECT i.id AS media_id, q.id AS job_id, i.source, i.title
                FROM inserted i JOIN queued q ON q.media_id = i.id
                ORDER BY i.id
                """)
            return try rows.map(Self.enqueued)
    }

    private static func enqueued(_ row: PostgresRow) throws -> EnqueuedMedia {
        EnqueuedMedia(
            mediaID: try row.decode("media_id"), jobID: try row.decode("job_id", as: Int64?.self) ?? 0,
            source: SecretRedactor.redactURLCredentials(in: try row.decode("source")),
            title: try row.decode("title"))
    }

    /// Media of these sources that are queued or in progress.
    public func activeDuplicates(of sources: [String], on connection: PostgresConnection? = nil) async throws -> [ActiveDuplicate] {
        let statement: PostgresQuery = """
            SELECT id, source, state FROM media
            WHERE source = ANY(\(sources)::text[]) AND state IN (\(literals: [MediaState.queued, .probing, .transcribing]))
            ORDER BY id
            """
        let rows = try await query(statement, on: connection)
        return try rows.map { ActiveDuplicate(
                mediaID: try $0.decode("id"), source: SecretRedactor.redactURLCredentials(in: try $0.decode("source")),
                state: try $0.decode("state")) }
    }

    /// "enqueue" in ASCII: the transaction lock that serialises enqueues.
    static let enqueueLockKey: Int64 = 0x65_6e_71_75_65_75_65
}
