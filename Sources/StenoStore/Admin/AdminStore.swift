import Foundation
public import Logging
import StenoCore
public import StenoInfrastructure
public import StenoPostgres

/// What the admin CLI reads and changes beyond the job queue: media, chapters, progress,
/// transcripts and reports. Writes that must agree run in one transaction or one statement.
public struct AdminStore: Sendable {
    public let client: PostgresClient
    let logger: Logger
    /// The waits between the runs of a control PostgreSQL chose as a deadlock victim.
    let clock: any MonotonicClock
    /// What now is in the statements that decide or report by time: the database's, in production.
    let time: StatementTime

    public init(
        client: PostgresClient, logger: Logger = Logger(label: "steno.admin"), clock: any MonotonicClock = .continuous,
        time: StatementTime = .database
    ) {
        self.client = client
        self.logger = logger
        self.clock = clock
        self.time = time
    }

    var jobs: JobStore { JobStore(client: client, time: time) }

    /// Fails with `schemaOutdated` unless every migration this code needs was applied.
    public func checkSchema() async throws {
        guard let version = try await StenoSchema.appliedMigration(client) else {
            throw AdminError(.schemaOutdated, "the database has no Steno schema", hint: "run `steno migrate`")
        }
        guard version >= StenoSchema.requiredMigration else {
            throw AdminError(
                .schemaOutdated,
                "the database schema is at migration \(version); this steno needs migration \(StenoSchema.requiredMigration)",
                hint: "run `steno migrate`")
        }
    }

    /// The media's state; `notFound` when there is no such media.
    func currentState(of mediaID: Int64, on connection: PostgresConnection? = nil, forUpdate: Bool = false) async throws -> MediaState {
        let statement: PostgresQuery = forUpdate
            ? "SELECT state FROM media WHERE id = \(mediaID) FOR UPDATE"
            : "SELECT state FROM media WHERE id = \(mediaID)"
        let rows = try await query(statement, on: connection)
        guard let row = rows.first else { throw Self.noSuchMedia(mediaID) }
        return try row.decode("state")
    }

    /// Checks that every id names a media, so that a command given several ids changes nothing
    /// when one of them is wrong; `notFound` lists all the missing ones.
    public func requireMedia(_ ids: [Int64]) async throws {
        let missing = try await client.query(
            "SELECT id FROM unnest(\(ids)::bigint[]) AS given(id) WHERE NOT EXISTS (SELECT 1 FROM media m WHERE m.id = given.id) ORDER BY id"
        ).map { try $0.decode("id", as: Int64.self) }
        guard !missing.isEmpty else { return }
        if missing.count == 1 { throw Self.noSuchMedia(missing[0], nothingChanged: ids.count > 1) }
        throw AdminError(
            .notFound, "there are no media \(missing.map(String.init).joined(separator: ", "))",
            hint: "nothing was changed; `steno list` shows the media and their ids")
    }

    static func noSuchMedia(_ mediaID: Int64, nothingChanged: Bool) -> AdminError {
        guard nothingChanged else { return noSuchMedia(mediaID) }
        return AdminError(.notFound, "there is no media \(mediaID)", hint: "nothing was changed; `steno list` shows the media and their ids")
    }

    static func noSuchMedia(_ mediaID: Int64) -> AdminError {
        AdminError(.notFound, "there is no media \(mediaID)", hint: "`steno list` shows the media and their ids")
    }

    /// The id of chapter `number` (1-based) of the media; `notFound` with the chapters it has.
    func chapterID(mediaID: Int64, number: Int, on connection: PostgresConnection? = nil) async throws -> Int64 {
        let index = number - 1
        let statement: PostgresQuery = """
            SELECT (SELECT id FROM chapters WHERE media_id = \(mediaID) AND index = \(index)) AS id,
                   (SELECT count(*) FROM chapters WHERE media_id = \(mediaID)) AS chapters
            """
        let row = try await query(statement, on: connection).single()
        if let id = try row.decode("id", as: Int64?.self) { return id }
        let count: Int = try row.decode("chapters")
        if count == 0 {
            throw AdminError(
                .notFound, "media \(mediaID) has no chapters yet: they are known once the worker has probed it",
                hint: "`steno status \(mediaID)` shows its stage")
        }
        throw AdminError(.notFound, "media \(mediaID) has no chapter \(number); it has chapters 1 to \(count)")
    }

    /// Wakes `steno wait` and anything else following the media.
    func notifyMediaChanged(_ mediaID: Int64, on connection: PostgresConnection? = nil) async throws {
        try await query("SELECT pg_notify(\(JobStore.Channel.media), \(String(mediaID)))", on: connection)
    }

    /// Runs the statement on `connection` (inside its transaction) when given, else on any pooled connection.
    @discardableResult
    func query(_ query: PostgresQuery, on connection: PostgresConnection?) async throws -> PostgresRows {
        if let connection {
            return try await connection.query(query)
        }
        return try await client.query(query)
    }
}
