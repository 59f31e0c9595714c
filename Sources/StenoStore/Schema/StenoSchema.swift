public import StenoPostgres

/// The schema the statements of this module need.
///
/// Every statement here may use what any migration in `migrations/` made, so the schema this
/// code needs is the newest migration it was built with. `SchemaVersionTests` reads the folder
/// and fails when a migration is added without this number, so the CLI's check and the
/// worker's wait cannot fall behind the tables they read.
public enum StenoSchema {
    /// The newest file in `migrations/` (`0027_source_objects.sql`).
    public static let requiredMigration = 27

    /// The newest migration applied to the database; nil when it has no Steno schema at all.
    public static func appliedMigration(_ client: PostgresClient) async throws -> Int? {
        let present = try await client.query("SELECT to_regclass('steno_migrations') IS NOT NULL AS present").single()
        guard try present.decode("present", as: Bool.self) else { return nil }
        let version: Int = try await client.query("SELECT COALESCE(max(version), 0) AS version FROM steno_migrations").single().decode("version")
        return version
    }
}
