import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoObjectStore
import StenoStore
import StenoTranscription

/// One language per media: an answer in another language than the media's is asked again in it.
extension ChunkJobHandler {
    /// The language an answer is in: the one it was asked in, else the one the backend said it
    /// detected (spelled out or as a code, normalized to the code); English for a translation.
    static func language(of result: TranscriptionResult, askedIn request: TranscriptionRequest) -> String? {
        // A translation is English, whatever the backend says was spoken.
        if request.task == .translate { return "en" }
        if let asked = request.language { return LanguageCode.normalized(asked) ?? asked }
        return result.transcription.language.flatMap(LanguageCode.normalized)
    }

    /// What was asked and answered, once the answer's language is settled.
    struct Asked {
        var request: TranscriptionRequest
        var result: TranscriptionResult
        /// The chunk as the answer's reviews see it (its language the one asked in).
        var chunk: WorkStore.ChunkRecord
        /// The language the answer is in (`language(of:askedIn:)`), the settled one when asked again.
        var language: String?
        /// What the first answer cost, when it was put aside for a second: both are paid.
        var earlier: AnswerCost?
    }

    /// The answer as it came, or, when it was asked bare and came back in another language than
    /// the one settled for its media meanwhile (`LanguageVote`), the answer to the same audio
    /// asked once more in the settled language. Checked before any review of the answer: the
    /// first answer is then put aside unreviewed. The second ask is paid for and counted in the
    /// chunk's usage (`earlier`); if it fails, the first answer stands.
    func inSettledLanguage(
        _ result: TranscriptionResult, _ request: TranscriptionRequest, _ chunk: WorkStore.ChunkRecord, encodedBytes: Int, _ context: JobContext
    ) async throws -> Asked {
        let first = Asked(request: request, result: result, chunk: chunk, language: Self.language(of: result, askedIn: request))
        guard request.language == nil, chunk.languageFromAnswers, let said = first.language,
              let settled = try await store.settledLanguage(mediaID: chunk.mediaID), settled != said
        else { return first }
        let metadata: Logger.Metadata = ["chunk.index": "\(chunk.index)", "answered_in": "\(said)", "media_language": "\(settled)"]
        context.logger.notice("the answer came back in another language than the media's; asking again in the media's", metadata: metadata)
        var again = request
        again.language = settled
        var inLanguage = chunk
        inLanguage.detectedLanguage = settled
        let second: TranscriptionResult
        do {
            second = try await requests.withPermit(classify: Self.congestion) {
                try await transcription.transcribe(again, primaryFailures: max(0, context.job.attempt - 1), cancellation: context.cancellation)
            }
        } catch let error as TranscriptionError where error.failureClass != .cancelled {
            metrics.recordLanguageAskedAgain(.failed)
            context.logger.warning("asking again in the media's language failed; keeping the answer as it is", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return first
        }
        metrics.recordLanguageAskedAgain(.retaken)
        let paid = AnswerCost(
            of: Self.stored(result, chunk: chunk.span, encodedBytes: encodedBytes, speedup: speedup), audioSeconds: chunk.span.length.seconds,
            speedup: speedup)
        return Asked(request: again, result: second, chunk: inLanguage, language: settled, earlier: paid)
    }

    /// The chunk's audio asked again, whole, in `language`, through every review (`reviewed`);
    /// nil (logged and counted) when the chunk is gone or the ask
    /// failed, so that the answer it has stands. For a merge: its chunks answered in another
    /// language than the one its media settled on.
    func retake(
        _ chunkID: Int64, in language: String, _ context: JobContext
    ) async throws -> (answer: WorkStore.StoredTranscription, paidAgain: Double, costAgain: Double?)? {
        guard var chunk = try await store.chunk(chunkID) else { return nil }
        chunk.detectedLanguage = language
        let range = chunk.span
        let file = try await sources.open(chunk.source, expecting: chunk.sourceObject, sourceTimeout: sourceTimeout, logger: context.logger)
        let encode: @Sendable () async throws -> [UInt8] = { [extraction, format, speedup] in
            try await extraction.run { try await file.encode(range, format: format, speed: speedup).data }
        }
        let metadata: Logger.Metadata = ["chunk.index": "\(chunk.index)", "media_language": "\(language)"]
        let answer: WorkStore.StoredTranscription
        let paidAgain: Double
        let costAgain: Double?
        do {
            let bytes = try await encode()
            await file.close()
            let (request, result) = try await transcribe(UploadAudio(bytes, remake: encode), chunk, context)
            var stored = Self.stored(result, chunk: range, encodedBytes: bytes.count, speedup: speedup)
            stored = try await reviewed(stored, result, chunk, request, context)
            stored.language = language
            let again = AnswerCost(of: stored, audioSeconds: range.length.seconds, speedup: speedup)
            (paidAgain, costAgain) = (again.seconds, again.usd)
            (AnswerCost(usage: chunk.usageSeconds, usd: chunk.costUSD, audioSeconds: range.length.seconds, speedup: speedup) + again)
                .charged(to: &stored)
            answer = stored
        } catch let error as MediaError where error.code != .cancelled {
            metrics.recordLanguageAskedAgain(.failed)
            context.logger.warning("could not encode a chunk to ask again in the media's language; keeping its answer", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return nil
        } catch let error as TranscriptionError where error.failureClass != .cancelled {
            metrics.recordLanguageAskedAgain(.failed)
            context.logger.warning("asking a chunk again in the media's language failed; keeping its answer", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return nil
        }
        metrics.recordLanguageAskedAgain(.retaken)
        return (answer, paidAgain, costAgain)
    }
}
