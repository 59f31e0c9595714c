import Foundation
import StenoCore
import StenoPostgres
import StenoStore
import StenoTestSupport
import Testing

/// The statements write states as the enums' cases (`\(literal: JobState.queued)`); the tables
/// check the same words. Each column's CHECK constraint must list exactly its enum's cases, so
/// that a case added on one side only fails here, not on a live worker.
@Suite("States: every CHECK constraint lists exactly its enum's cases")
struct StateConstraintTests {
    static func checked(_ table: String, _ column: String, _ client: PostgresClient) async throws -> Set<String> {
        let definitions: [String] = try await client.query(
            """
            SELECT pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c
            WHERE c.conrelid = $1::regclass AND c.contype = 'c'
            """, [table]
        ).map { try $0.decode("definition") }
        // The one constraint on the column alone: `CHECK ((state = ANY (ARRAY['queued'::text, ...])))`.
        let lists = definitions.filter { $0.contains("(\(column) = ANY (ARRAY[") }
        #expect(lists.count == 1, "\(table).\(column): \(definitions)")
        let words = try #require(lists.first).split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        return Set(words)
    }

    static func cases<Value: CaseIterable & RawRepresentable>(_: Value.Type) -> Set<String> where Value.RawValue == String {
        Set(Value.allCases.map(\.rawValue))
    }

    @Test("media, chapters, chunks, jobs, workers and job attempts")
    func constraintsMatchEnums() async throws {
        try await TestDatabase.with { database in
            let client = database.client()
            let columns: [(table: String, column: String, cases: Set<String>)] = [
                ("media", "state", Self.cases(MediaState.self)), ("chapters", "state", Self.cases(ChapterState.self)),
                ("chunks", "state", Self.cases(ChunkState.self)), ("jobs", "state", Self.cases(JobState.self)),
                ("jobs", "kind", Self.cases(JobKind.self)), ("workers", "status", Self.cases(WorkerState.self)),
                ("job_attempts", "outcome", Self.cases(JobAttempt.Outcome.self)),
            ]
            for (table, column, cases) in columns {
                let checked = try await Self.checked(table, column, client)
                #expect(checked == cases, "\(table).\(column)")
            }
            await client.shutdown()
        }
    }

    /// The statements of StenoStore name states, job kinds, failure classes and attempt outcomes
    /// only through the enums: a word typed in quotes in SQL would not be checked against them.
    @Test("no statement of StenoStore writes a state, a kind, a failure class or an outcome as a quoted word")
    func noQuotedStates() throws {
        let words = Self.cases(MediaState.self).union(Self.cases(ChapterState.self)).union(Self.cases(ChunkState.self))
            .union(Self.cases(JobState.self)).union(Self.cases(WorkerState.self)).union(Self.cases(JobKind.self))
            .union(Self.cases(FailureClass.self)).union(Self.cases(JobAttempt.Outcome.self))
        let folder = PackageRoot.url.appendingPathComponent("Sources/StenoStore")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var found: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for word in words where line.contains("'\(word)'") {
                    found.append("\(file.lastPathComponent):\(number + 1): '\(word)'")
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
