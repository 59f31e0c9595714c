import StenoPostgres

extension AdminStore {
    /// Which of `sources` some media still names, of any tenant and in any state: a recording is
    /// needed while its media exists, since a retry reads it again. Over `media_source_idx`.
    public func namedSources(among sources: [String]) async throws -> Set<String> {
        var named: Set<String> = []
        // In batches, so that a directory of 100,000 uploads is not one statement of 100,000 values.
        var start = sources.startIndex
        while start < sources.endIndex {
            let end = sources.index(start, offsetBy: 1000, limitedBy: sources.endIndex) ?? sources.endIndex
            let batch = Array(sources[start..<end])
            let rows = try await client.query("SELECT DISTINCT source FROM media WHERE source = ANY(\(batch)::text[])")
            for row in rows { named.insert(try row.decode("source")) }
            start = end
        }
        return named
    }
}
