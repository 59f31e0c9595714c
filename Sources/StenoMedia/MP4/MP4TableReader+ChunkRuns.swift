extension MP4TableReader {
    /// One run of a sample-to-chunk (`stsc`) table: its first chunk (0-based), its samples per
    /// chunk, and how many chunks it covers (up to the next run's first, or the last chunk).
    func chunkRun(_ run: Int, runs: Int, chunks: Int) throws(AVIOFailure) -> (first: Int, perChunk: Int, chunks: Int) {
        let first = Int(try uint32(run)) - 1
        let perChunk = Int(try uint32(run, field: 1))
        let nextFirst = run + 1 < runs ? Int(try uint32(run + 1)) - 1 : chunks
        return (first, perChunk, max(0, min(nextFirst, chunks) - first))
    }
}
