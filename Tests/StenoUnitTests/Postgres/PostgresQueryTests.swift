import Foundation
import Testing

@testable import StenoPostgres

@Suite("PostgresQuery: each value bound where it is written")
struct PostgresQueryTests {
    @Test("interpolated values become numbered parameters in order, NULL included, and never enter the SQL")
    func valuesBecomeParameters() {
        let id: Int64 = 42
        let name = "Robert'); DROP TABLE media; --"
        let missing: String? = nil
        let query: PostgresQuery = "UPDATE media SET title = \(name), language = \(missing) WHERE id = \(id)"
        #expect(query.sql == "UPDATE media SET title = $1, language = $2 WHERE id = $3")
        #expect(query.bindings == [name, nil, "42"])
        #expect(!query.sql.contains("DROP"))
        #expect(query.isPrepared)
    }

    @Test("a value written twice is bound twice")
    func repeatedValue() {
        let id = 7
        let query: PostgresQuery = "SELECT \(id) AS a, \(id) AS b"
        #expect(query.sql == "SELECT $1 AS a, $2 AS b")
        #expect(query.bindings == ["7", "7"])
    }

    @Test("a fragment's parameters are renumbered after the query's own; quoted text keeps its dollars")
    func fragmentsAreRenumbered() {
        let owner = "w1"
        let fence: PostgresQuery = "lease_owner = \(owner) AND note <> '$1' AND \"odd$2\" = 1"
        let attempt = 3
        let query: PostgresQuery = "UPDATE jobs SET attempt = \(attempt) WHERE \(fence) AND id = \(Int64(9))"
        #expect(query.sql == "UPDATE jobs SET attempt = $1 WHERE lease_owner = $2 AND note <> '$1' AND \"odd$2\" = 1 AND id = $3")
        #expect(query.bindings == ["3", "w1", "9"])
    }

    @Test("arrays are array literals with every element quoted, quotes and backslashes escaped")
    func arrays() {
        let query: PostgresQuery = "SELECT \(["a", "b\"c", "d\\e"])::text[], \([Int64(1), 2])::bigint[], \([String?.none, "x"])::text[]"
        #expect(query.bindings == [#"{"a","b\"c","d\\e"}"#, #"{"1","2"}"#, #"{NULL,"x"}"#])
    }

    @Test("an integer can be written into the SQL where the planner must see it; SQL text only from constants")
    func literalsAndConstants() {
        let limit = 10
        let query: PostgresQuery = "SELECT id FROM jobs \(sql: "ORDER BY id") LIMIT \(literal: limit)"
        #expect(query.sql == "SELECT id FROM jobs ORDER BY id LIMIT 10")
        #expect(query.bindings.isEmpty)
    }

    @Test("its description is the statement's first line, never a parameter")
    func descriptionHidesValues() {
        let secret = "hunter2"
        let query: PostgresQuery = "UPDATE media SET webhook_url = \(secret) WHERE id = \(1)"
        #expect(!query.description.contains(secret))
    }
}
