import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
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

    /// The answer, or, when it was asked bare and came back in another language than the one
    /// settled for its media meanwhile (`LanguageVote`), the answer to the same audio asked
    /// once more in the settled language. That second ask is paid for and counted in the
    /// chunk's usage; if it fails, the first answer stands.
    func inSettledLanguage(
        _ answer: WorkStore.StoredTranscription, _ chunk: WorkStore.ChunkRecord, _ request: TranscriptionRequest, _ context: JobContext
    ) async throws -> WorkStore.StoredTranscription {
        guard request.language == nil, chunk.languageFromAnswers, let said = answer.language,
              let settled = try await store.settledLanguage(mediaID: chunk.mediaID), settled != said
        else { return answer }
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
            return answer
        }
        var stored = Self.stored(second, chunk: chunk.span, encodedBytes: answer.encodedBytes, speedup: speedup)
        stored.voices = answer.voices
        stored = try await reviewed(stored, second, inLanguage, again, context)
        // Both answers were billed: by the backend's usage where it said, else by the audio sent.
        let length = chunk.span.length.seconds / speedup
        stored.usageSeconds = (answer.usageSeconds ?? length) + (stored.usageSeconds ?? length)
        stored.costUSD = Self.sum(answer.costUSD, stored.costUSD)
        stored.language = settled
        metrics.recordLanguageAskedAgain(.retaken)
        return stored
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
        let file = MediaFile(MediaLocation(chunk.source), sourceTimeout: sourceTimeout, logger: context.logger)
        let encode: @Sendable () async throws -> [UInt8] = { [extraction, format, speedup] in
            try await extraction.run { try await file.encode(range, format: format, speed: speedup).data }
        }
        let metadata: Logger.Metadata = ["chunk.index": "\(chunk.index)", "media_language": "\(language)"]
        let answer: WorkStore.StoredTranscription
        let paidAgain: Double
        let costAgain: Double?
        // Billed as gated() bills: by the backend's usage where it said, else by the audio sent.
        let length = range.length.seconds / speedup
        do {
            let bytes = try await encode()
            await file.close()
            let (request, result) = try await transcribe(UploadAudio(bytes, remake: encode), chunk, context)
            var stored = Self.stored(result, chunk: range, encodedBytes: bytes.count, speedup: speedup)
            stored = try await reviewed(stored, result, chunk, request, context)
            stored.language = language
            (paidAgain, costAgain) = (stored.usageSeconds ?? length, stored.costUSD)
            stored.usageSeconds = (chunk.usageSeconds ?? length) + paidAgain
            stored.costUSD = Self.sum(chunk.costUSD, costAgain)
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
