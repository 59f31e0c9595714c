import Foundation
import StenoInfrastructure
import StenoPostgres
import Synchronization

/// The migrated database that `TestDatabase` copies, made once per cluster and migration set.
///
/// Its name carries a digest of every migration's checksum, so an edited or added migration gets
/// a template of its own and no test copies a stale schema. Processes that share a cluster (the
/// phases of `scripts/test`) take an advisory lock around making it; within a process one task
/// makes it and the others wait for that task.
enum MigratedTemplate {
    private static let making = Mutex<[String: Task<String, any Error>]>([:])

    static func name(on cluster: String) async throws -> String {
        let task = making.withLock { tasks -> Task<String, any Error> in
            if let task = tasks[cluster] { return task }
            let task = Task { try await make(on: cluster) }
            tasks[cluster] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failed attempt (the server restarting under a test) is not kept for the next.
            forget(task, on: cluster)
            throw error
        }
    }

    /// Forgets the template made on `cluster` by `task`, for a cluster made anew at the same
    /// address; the next `name(on:)` makes it again.
    static func forget(_ task: Task<String, any Error>? = nil, on cluster: String) {
        making.withLock { tasks in
            if task == nil || tasks[cluster] == task { tasks[cluster] = nil }
        }
    }

    private static func make(on cluster: String) async throws -> String {
        let migrations = try Migration.load(from: PackageRoot.migrations)
        let name = "steno_template_" + digest(migrations.map(\.checksum).joined(separator: ","))
        let admin = try await PostgresConnection.connect(configuration: PostgresConfiguration(connectionString: cluster))
        do {
            // A session lock: the end of this session releases it, whatever happens below.
            try await admin.query("SELECT pg_advisory_lock(1400136047, 1)", [])
            if try await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]).isEmpty {
                // Made under another name and renamed when whole, so that a run killed half-way
                // leaves no half-migrated template behind that a later run would copy.
                let building = name + "_building"
                try await admin.query("DROP DATABASE IF EXISTS \(building) WITH (FORCE)", [])
                try await admin.query("CREATE DATABASE \(building)", [])
                let connection = try await PostgresConnection.connect(
                    configuration: PostgresConfiguration(connectionString: cluster + " dbname=\(building)", applicationName: "steno-tests"))
                _ = try await MigrationRunner(migrations: migrations).migrate(on: connection)
                await connection.close()
                try await admin.query("ALTER DATABASE \(building) RENAME TO \(name)", [])
            }
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        return name
    }

    /// FNV-1a, 64 bits, in hex: a name's worth of the migrations' checksums.
    private static func digest(_ text: String) -> String {
        FNV1a.hex(text)
    }
}
