import Logging
import StenoPostgres
import StenoStore

extension DatabaseOptions {
    /// Connects, checks that the schema is migrated far enough, runs `body`, and closes the pool.
    func withAdminStore<Result>(_ body: (AdminStore) async throws -> Result) async throws -> Result {
        let client = PostgresClient(configuration: try configuration(), maxConnections: 2, logger: Logger(label: "steno.postgres"))
        do {
            let store = AdminStore(client: client, logger: Logger(label: "steno.admin"))
            try await store.checkSchema()
            let result = try await body(store)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }
}
