import Foundation
import StenoCore
import StenoStore
import StenoTestSupport
import Testing

@testable import StenoPostgres

/// Full-text search over segments: the lexemes the database keeps, in each media's language.
@Suite("Transcript search")
struct TranscriptSearchTests {
    private func media(_ client: PostgresClient, title: String, tenant: String = "acme", language: String?, segments: [String]) async throws -> Int64 {
        let spans = segments.enumerated().map { index, text in TestMediaBuilder.Segment(Double(index * 10), Double(index * 10 + 9), text) }
        let id = try await TestMediaBuilder.insert(
            .init("/books/\(title).m4b", title: title, chapters: [.init("One", 0, Double(segments.count * 10), segments: spans)]), into: client
        ).mediaID
        try await client.query("UPDATE media SET tenant = \(tenant), language = \(language) WHERE id = \(id)")
        return id
    }

    @Test("a media of known language matches other forms of a word; one of unknown language matches the word as written")
    func languageAware() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 2)
            let store = AdminStore(client: client)
            let english = try await media(client, title: "English", language: "en", segments: ["The runners were running by the sea", "Nothing here"])
            let unknown = try await media(client, title: "Unknown", language: nil, segments: ["She was running late", "The runners left"])
            let run = try await store.search("run", tenant: "acme")
            #expect(run.hits.map(\.mediaID) == [english], "only the English media stems running to run")
            let running = try await store.search("running", tenant: "acme").hits
            #expect(Set(running.map(\.mediaID)) == [english, unknown])
            let hit = try #require(running.first { $0.mediaID == english })
            #expect(hit.chapter == 1 && hit.segmentIndex == 0 && hit.start == 0)
            #expect(hit.snippet.parts.contains { $0.marked && $0.text.lowercased().hasPrefix("run") })
            // Restricted to a language: that language's media only.
            #expect(try await store.search("running", tenant: "acme", language: "en").hits.map(\.mediaID) == [english])
            // Phrases and exclusions in web search syntax.
            #expect(try await store.search("\"runners left\"", tenant: "acme").hits.map(\.mediaID) == [unknown])
            #expect(try await store.search("running -sea", tenant: "acme").hits.map(\.mediaID) == [unknown])
            // Only stop words, or nothing: no hits and no error.
            #expect(try await store.search("the", tenant: "acme", language: "en").hits.isEmpty)
            #expect(try await store.search("   ", tenant: "acme").hits.isEmpty)
            await client.shutdown()
        }
    }

    @Test("a tenant finds only its own media, and flagged text is not searched")
    func tenantsAndFlags() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 2)
            let store = AdminStore(client: client)
            let mine = try await media(client, title: "Mine", language: "en", segments: ["the lighthouse keeper", "thank you for watching"])
            _ = try await media(client, title: "Theirs", tenant: "other", language: "en", segments: ["the lighthouse keeper"])
            #expect(try await store.search("lighthouse", tenant: "acme").hits.map(\.mediaID) == [mine])
            #expect(try await store.search("watching", tenant: "acme").hits.map(\.mediaID) == [mine])
            try await client.query("UPDATE segments SET flag = 'known_hallucination' WHERE media_id = \(mine) AND index = 1")
            #expect(try await store.search("watching", tenant: "acme").hits.isEmpty, "a flagged segment was found")
            await client.shutdown()
        }
    }

    @Test("a media whose language changes is searched in its new language")
    func languageChange() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 2)
            let store = AdminStore(client: client)
            let id = try await media(client, title: "Later", language: nil, segments: ["the runners were running"])
            #expect(try await store.search("run", tenant: "acme").hits.isEmpty)
            try await client.query("UPDATE media SET language = 'en' WHERE id = \(id)")
            #expect(try await store.search("run", tenant: "acme").hits.map(\.mediaID) == [id])
            await client.shutdown()
        }
    }

    @Test("a word in more segments than a search ranks is ranked among the first of them, and said to be")
    func capped() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 2)
            let store = AdminStore(client: client)
            let count = AdminStore.searchCandidates + 10
            try await client.query("INSERT INTO media (source, title, tenant) VALUES ('/many.mp3', 'Many', 'acme')")
            try await client.query(
                """
                INSERT INTO chapters (media_id, index, start_seconds, end_seconds, state) SELECT id, 0, 0, \(Double(count)), 'succeeded' FROM media
                """)
            try await client.query(
                """
                INSERT INTO segments (media_id, chapter_id, index, start_seconds, end_seconds, text)
                SELECT c.media_id, c.id, g, g, g + 1, 'the keeper said ' || g FROM chapters c, generate_series(0, \(count - 1)) g
                """)
            let common = try await store.search("keeper", tenant: "acme", limit: 5)
            #expect(common.capped && common.hits.count == 5)
            let rare = try await store.search("\"said 7\"", tenant: "acme", limit: 5)
            #expect(!rare.capped && rare.hits.map(\.segmentIndex) == [7])
            await client.shutdown()
        }
    }

    @Test("the search reads the GIN index, not every segment")
    func usesTheIndex() async throws {
        try await TestDatabase.with { database in
            let client = database.client(maxConnections: 1)
            _ = try await media(client, title: "Indexed", language: "en", segments: (0..<50).map { "segment number \($0) about lighthouses" })
            try await client.query("ANALYZE segments")
            try await client.query("SET enable_seqscan = off")
            let plan = try await client.query(
                "EXPLAIN SELECT id FROM segments WHERE search @@ websearch_to_tsquery('english', 'lighthouse')"
            ).map { try $0.decode("QUERY PLAN", as: String.self) }.joined(separator: "\n")
            #expect(plan.contains("segments_search_idx"), "\(plan)")
            await client.shutdown()
        }
    }
}
