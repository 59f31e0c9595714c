import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoPostgres
import StenoStore
import StenoTranscription

/// A chunk that encodes over the upload limit becomes two.
extension ChunkJobHandler {
    func split(
        _ chunk: WorkStore.ChunkRecord, file: MediaFile, context: JobContext, error: MediaError
    ) async throws -> JobOutcome {
        let range = chunk.span
        // Halves gain the overlap, so below this they stop shrinking: the limit is too small.
        guard range.upperBound - range.lowerBound > MediaTime(seconds: 1) + planner.configuration.overlap else {
            throw MediaError(
                .encodedTooLarge,
                "a chunk of \(range.length.seconds) s still encodes to more than \(planner.configuration.maxUploadBytes) bytes; the upload limit is too small for this format",
                source: chunk.source)
        }
        let (energy, speech) = try await extraction.run { try await file.speechAnalysis(range, voice: voice) }
        let whole = PlannedChunk(index: chunk.index, cutStart: range.lowerBound, cutEnd: range.upperBound, start: range.lowerBound, end: range.upperBound)
        let pieces = planner.split(whole, into: 2, energy: energy, voice: speech)
        try await store.storeSplit(context.lease, chunk: chunk, pieces: pieces)
        context.logger.info("chunk over the upload limit; split it", metadata: [
            "chunk.index": "\(chunk.index)", "bytes_so_far": "\(error.encodedBytes ?? 0)", "limit": "\(error.limitBytes ?? 0)",
        ])
        return .completed
    }
}
