import Foundation
import StenoCore
import StenoPostgres
import StenoTestSupport
import Testing

/// The query KEDA's postgresql scaler runs (deploy/kubernetes/keda-scaledobject.yaml), read from
/// the manifest itself so that the two cannot drift apart.
@Suite("KEDA scaler query")
struct KedaScalerQueryTests {
    static func manifestQuery() throws -> String {
        let manifest = try String(
            contentsOf: PackageRoot.url.appendingPathComponent("deploy/kubernetes/keda-scaledobject.yaml"), encoding: .utf8)
        let line = try #require(
            manifest.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("query:") },
            "the ScaledObject has a query")
        var query = line.trimmingCharacters(in: .whitespaces).dropFirst("query:".count).trimmingCharacters(in: .whitespaces)
        if query.hasPrefix("\"") && query.hasSuffix("\"") { query = String(query.dropFirst().dropLast()) }
        return query
    }

    @Test("counts the jobs that are due or running, not those finished or waiting to retry")
    func countsDueAndRunning() async throws {
        let query = try Self.manifestQuery()
        try await TestDatabase.with { database in
            let client = database.client()
            try await client.query(
                """
                INSERT INTO jobs (kind, state, finished_at) SELECT 'chunk', 'succeeded', now() FROM generate_series(1, 50);
                """)
            try await client.query("INSERT INTO jobs (kind, state, finished_at) SELECT 'chunk', 'failed', now() FROM generate_series(1, 5)")
            try await client.query("INSERT INTO jobs (kind, state, finished_at) SELECT 'chunk', 'cancelled', now() FROM generate_series(1, 4)")
            // Due now: 7; waiting to retry in an hour: 3; running: 2.
            try await client.query("INSERT INTO jobs (kind, run_at) SELECT 'chunk', now() - interval '1 second' FROM generate_series(1, 7)")
            try await client.query("INSERT INTO jobs (kind, run_at) SELECT 'chunk', now() + interval '1 hour' FROM generate_series(1, 3)")
            try await client.query(
                """
                INSERT INTO jobs (kind, state, attempt, lease_owner, lease_expires_at)
                SELECT 'chapter', 'running', 1, 'w1', now() + interval '1 minute' FROM generate_series(1, 2)
                """)
            let count: Int64 = try await client.query(query, []).single().decode("jobs")
            #expect(count == 9)
            await client.shutdown()
        }
    }

    @Test("reads indexes of the jobs table, never the table itself")
    func usesTheIndexes() async throws {
        let query = try Self.manifestQuery()
        try await TestDatabase.with { database in
            let client = database.client()
            try await client.query(
                "INSERT INTO jobs (kind, state, finished_at) SELECT 'chunk', 'succeeded', now() FROM generate_series(1, 20000)")
            try await client.query("INSERT INTO jobs (kind) SELECT 'chunk' FROM generate_series(1, 20)")
            try await client.query("ANALYZE jobs")
            let plan = try await client.query("EXPLAIN \(query)", []).map { $0.text("QUERY PLAN") ?? "" }.joined(separator: "\n")
            // Both counts come from an index: the partial indexes of queued and running jobs.
            #expect(plan.components(separatedBy: "Index").count - 1 >= 2, "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            await client.shutdown()
        }
    }
}
