public import StenoPostgres
import Testing

extension PostgresConfiguration {
    /// Waits until another session of this database is running a statement that begins with
    /// `prefix`, read from `pg_stat_activity`: a test then acts on a statement that is on the
    /// server, not on one a sleep hopes has got there.
    public func waitUntilRunning(_ prefix: String, within limit: Duration = .seconds(60)) async throws {
        let observer = try await PostgresConnection.connect(configuration: self)
        do {
            try await poll(until: {
                try await observer.query(
                    """
                    SELECT count(*)::integer AS n FROM pg_stat_activity
                    WHERE state = 'active' AND pid <> pg_backend_pid() AND datname = current_database()
                      AND starts_with(query, \(prefix))
                    """
                ).single().decode("n", as: Int.self) > 0
            }, within: limit, "a session running \(prefix)")
        } catch {
            await observer.close()
            throw error
        }
        await observer.close()
    }
}
