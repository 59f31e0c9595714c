import Foundation
public import StenoCore
import StenoPostgres

extension AdminStore {
    /// Segments of `tenant`'s transcripts matching `text` (web search syntax: words, "a phrase",
    /// or, -not), best first. Each media's segments were indexed in its language's configuration
    /// (`steno_search_config`): the query is parsed in every configuration the tenant's media
    /// use (or `language`'s only), and the parses are or-ed, so that "running" finds "run" in an
    /// English book and "running" in one of unknown language. The GIN index finds the segments;
    /// only the page's hits get a snippet.
    ///
    /// Ranking reads every match's lexemes, so it is bounded: the best hits are chosen among the
    /// first `searchCandidates` matches. A word found in more segments than that (a common word
    /// in media indexed without stop words) gets `capped`, and the page says to narrow it.
    public func search(
        _ text: String, tenant: String, language: String? = nil, speaker: String? = nil, limit: Int = 20, offset: Int = 0
    ) async throws -> (hits: [SearchHit], capped: Bool) {
        var capped = false
        let hits = try await client.query(
            """
            WITH q AS MATERIALIZED (
                SELECT (SELECT string_agg('(' || parsed::text || ')', ' | ')
                        FROM (SELECT websearch_to_tsquery(config, \(text)) AS parsed
                              FROM (SELECT DISTINCT steno_search_config(steno_text_language(language, detected_language, translate)) AS config FROM media
                                    WHERE tenant = \(tenant)
                                      AND (\(language)::text IS NULL OR steno_search_config(steno_text_language(language, detected_language, translate)) = steno_search_config(\(language)::text))) configs
                             ) parses
                        WHERE numnode(parsed) > 0)::tsquery AS query
            ), matches AS MATERIALIZED (
                SELECT s.id, s.media_id, s.chapter_id, s.index, s.start_seconds, s.end_seconds, s.text, s.search, s.speaker
                FROM q, segments s JOIN media m ON m.id = s.media_id
                WHERE q.query IS NOT NULL AND s.search @@ q.query AND m.tenant = \(tenant)
                  AND (\(language)::text IS NULL OR steno_search_config(steno_text_language(m.language, m.detected_language, m.translate)) = steno_search_config(\(language)::text))
                  AND (\(speaker)::text IS NULL OR EXISTS (
                        SELECT 1 FROM speakers sp WHERE sp.media_id = s.media_id AND sp.number = s.speaker
                          AND lower(coalesce(sp.name, 'Speaker ' || sp.number)) = lower(\(speaker)::text)))
                LIMIT \(Self.searchCandidates)
            ), hits AS (
                SELECT matches.*, ts_rank_cd(matches.search, q.query) AS rank
                FROM matches, q
                ORDER BY rank DESC, matches.media_id DESC, matches.chapter_id, matches.index
                LIMIT \(limit) OFFSET \(offset)
            )
            SELECT (SELECT count(*) FROM matches) >= \(Self.searchCandidates) AS capped, h.media_id, m.title, steno_text_language(m.language, m.detected_language, m.translate) AS language, c.index + 1 AS chapter, c.title AS chapter_title, h.index, h.start_seconds, h.end_seconds,
                   ts_headline(steno_search_config(steno_text_language(m.language, m.detected_language, m.translate)), h.text, q.query,
                               'StartSel=' || chr(57344) || ', StopSel=' || chr(57345) || ', MaxWords=40, MinWords=15, HighlightAll=false') AS headline,
                   (SELECT coalesce(sp.name, 'Speaker ' || sp.number) FROM speakers sp
                    WHERE sp.media_id = h.media_id AND sp.number = h.speaker
                      AND (SELECT count(*) FROM speakers other WHERE other.media_id = h.media_id) >= 2) AS speaker
            FROM hits h CROSS JOIN q JOIN media m ON m.id = h.media_id JOIN chapters c ON c.id = h.chapter_id
            ORDER BY h.rank DESC, h.media_id DESC, h.chapter_id, h.index
            """
        ).map { row in
            capped = try row.decode("capped")
            return SearchHit(
                mediaID: try row.decode("media_id"), mediaTitle: try row.decode("title"), language: try row.decode("language"),
                chapter: try row.decode("chapter"), chapterTitle: try row.decode("chapter_title"), segmentIndex: try row.decode("index"),
                start: try row.decode("start_seconds"), end: try row.decode("end_seconds"),
                snippet: SearchSnippet(headline: try row.decode("headline")), speaker: try row.decode("speaker"))
        }
        return (hits, capped)
    }

    /// How many matches a search ranks at most.
    public static let searchCandidates = 2000

    /// The languages of `tenant`'s media, for the search form's choice.
    public func languages(tenant: String) async throws -> [String] {
        try await client.query(
            "SELECT DISTINCT steno_text_language(language, detected_language, translate) AS language FROM media WHERE tenant = \(tenant) AND steno_text_language(language, detected_language, translate) IS NOT NULL ORDER BY language"
        ).map { try $0.decode("language") }
    }
}
