import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoObjectStore
import StenoPostgres
import StenoStore
import StenoTranscription

/// A chunk that encodes over the upload limit, or whose worker keeps dying under it from
/// outside, becomes two.
extension ChunkJobHandler {
    /// Why a chunk is cut in two.
    enum SplitReason {
        /// It encodes to more than the upload limit.
        case tooLarge(MediaError)
        /// Its worker died under it this many times, none a crash (`RescuePolicy.splitsDyingChunk`).
        case keptDying(deaths: Int)
    }

    /// Cuts a chunk that keeps dying with its worker in two before it is tried whole again; nil
    /// when it is not one.
    func splitIfDying(_ chunk: WorkStore.ChunkRecord, context: JobContext) async throws -> JobOutcome? {
        let deaths = context.job.crashRescues
        let seconds = chunk.span.length.seconds
        // Read only once the cheap conditions hold: most jobs never died.
        guard RescuePolicy.splitsDyingChunk(deaths: deaths, crashes: 0, seconds: seconds) else { return nil }
        let crashes = try await store.crashes(ofJob: context.job.id)
        guard RescuePolicy.splitsDyingChunk(deaths: deaths, crashes: crashes, seconds: seconds) else { return nil }
        let file = try await sources.open(chunk.source, expecting: chunk.sourceObject, sourceTimeout: sourceTimeout, logger: context.logger)
        let outcome: JobOutcome
        do {
            outcome = try await split(chunk, file: file, context: context, because: .keptDying(deaths: deaths))
        } catch {
            await file.close()
            throw error
        }
        await file.close()
        return outcome
    }

    func split(
        _ chunk: WorkStore.ChunkRecord, file: MediaFile, context: JobContext, because reason: SplitReason
    ) async throws -> JobOutcome {
        let range = chunk.span
        if case .tooLarge = reason {
            // Halves gain the overlap, so below this they stop shrinking: the limit is too small.
            guard range.upperBound - range.lowerBound > MediaTime(seconds: 1) + planner.configuration.overlap else {
                throw MediaError(
                    .encodedTooLarge,
                    "a chunk of \(range.length.seconds) s still encodes to more than \(planner.configuration.maxUploadBytes) bytes; the upload limit is too small for this format",
                    source: chunk.source)
            }
        }
        let (energy, speech) = try await extraction.run { try await file.speechAnalysis(range, voice: voice) }
        let whole = PlannedChunk(index: chunk.index, cutStart: range.lowerBound, cutEnd: range.upperBound, start: range.lowerBound, end: range.upperBound)
        let pieces = planner.split(whole, into: 2, energy: energy, voice: speech)
        try await store.storeSplit(context.lease, chunk: chunk, pieces: pieces)
        switch reason {
        case .tooLarge(let error):
            context.logger.info("chunk over the upload limit; split it", metadata: [
                "chunk.index": "\(chunk.index)", "bytes_so_far": "\(error.encodedBytes ?? 0)", "limit": "\(error.limitBytes ?? 0)",
            ])
        case .keptDying(let deaths):
            context.logger.notice("chunk died with its worker again and again; split it so that less is lost to the next death", metadata: [
                "chunk.index": "\(chunk.index)", "deaths": "\(deaths)", "seconds": "\(range.length.seconds)",
                "pieces": "\(pieces.map { "\($0.start.seconds)-\($0.end.seconds)" })",
            ])
        }
        return .completed
    }
}
