import Logging
public import StenoCore

extension MediaFile {
    /// Encodes `chunk`; when the encoding passes `sizeLimit`, splits the chunk in two at the
    /// quietest point near its middle and encodes each half, recursively, so nothing over the
    /// limit is ever returned. Pieces come back in order, each with its planned range; the
    /// caller stores them as separate chunks.
    public func encodeSplittingIfTooLarge(
        _ chunk: PlannedChunk, planner: ChunkPlanner, format: ChunkFormat = .flac, sizeLimit: Int
    ) async throws(MediaError) -> [(chunk: PlannedChunk, encoded: EncodedChunk)] {
        do {
            let encoded = try await encode(chunk.start..<chunk.end, format: format, sizeLimit: sizeLimit)
            return [(chunk, encoded)]
        } catch where error.code == .encodedTooLarge {
            guard chunk.cutEnd - chunk.cutStart > MediaTime(seconds: 2) else {
                throw MediaError(.encodedTooLarge, "a chunk of \(chunk.duration) s still encodes to more than \(sizeLimit) bytes; the limit is too small for this format", source: location.description)
            }
            logger.info("encoded chunk over the size limit; splitting it", metadata: [
                "start": "\(chunk.start)", "end": "\(chunk.end)", "bytes_so_far": "\(error.encodedBytes ?? 0)", "limit": "\(sizeLimit)",
            ])
            let energy = try await energyProfile(chunk.start..<chunk.end)
            var pieces: [(chunk: PlannedChunk, encoded: EncodedChunk)] = []
            for half in planner.split(chunk, into: 2, energy: energy) {
                pieces += try await encodeSplittingIfTooLarge(half, planner: planner, format: format, sizeLimit: sizeLimit)
            }
            for index in pieces.indices {
                pieces[index].chunk.index = chunk.index + index
            }
            return pieces
        }
    }
}
