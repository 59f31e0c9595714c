import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoObjectStore
import StenoSpeech
import StenoStore
import StenoTranscription

/// Times for answers that came as text alone.
extension ChunkJobHandler {
    /// An answer through every review, in order: the gates, the ask for speech it left without
    /// words, then the times of a text-only answer (`aligned`), recovered words included.
    ///
    /// Alignment comes last: a text-only answer is judged for speech without words by its
    /// text's spoken length, as before. Judged by aligned times instead, a word the aligner
    /// skipped under noise left its speech looking unanswered, and the span was paid for again
    /// (bench/fidelity --noise 0.1: one span asked again, its three words already in the text).
    func reviewed(
        _ stored: WorkStore.StoredTranscription, _ result: TranscriptionResult, _ chunk: WorkStore.ChunkRecord,
        _ request: TranscriptionRequest, _ context: JobContext
    ) async throws -> WorkStore.StoredTranscription {
        let gated = try await gated(stored, result, chunk, request, context)
        return try await aligned(try await recovered(gated, chunk, request, timed: result.transcription.timed, context), result, chunk, context)
    }

    /// A text-only answer (OpenAI's gpt-4o transcribe models answer `json`: text, no times)
    /// with each word at the time it was said, found by aligning the text with the chunk's
    /// audio (`TextAligner`): the chunk is then merged as one whose backend gave word times.
    /// The chunk is decoded once more for it, since the upload is dropped once sent. When the
    /// audio cannot be read again or the text does not fit it, the answer is kept as it came
    /// and its words are laid over the chunk's speech at the merge, as without an aligner.
    func aligned(
        _ answer: WorkStore.StoredTranscription, _ result: TranscriptionResult, _ chunk: WorkStore.ChunkRecord, _ context: JobContext
    ) async throws -> WorkStore.StoredTranscription {
        guard let aligner, !result.transcription.timed, answer.words.isEmpty, !answer.text.isEmpty else { return answer }
        // A translation's text is in another language than its audio: there is nothing in the
        // speech to match its words with, and the times would be invented. It keeps no times and
        // is laid over the chunk's speech at the merge. (Text in the audio's own language, English
        // or not, is aligned: docs/backends.md.)
        guard !chunk.translate else {
            metrics.recordAlignment(.skipped, audioSeconds: 0, seconds: 0)
            return answer
        }
        let range = chunk.span
        var metadata: Logger.Metadata = ["chunk.index": "\(chunk.index)", "audio_seconds": "\(Self.rounded(range.length.seconds))"]
        let file = try await sources.open(chunk.source, expecting: chunk.sourceObject, sourceTimeout: sourceTimeout, logger: context.logger)
        let samples: [Int16]
        do {
            samples = try await extraction.run { try await file.analyze(range) { _, expected in SampleCollector(expectedSamples: expected) } }
            await file.close()
        } catch let error as MediaError where error.code != .cancelled {
            await file.close()
            metrics.recordAlignment(.failed, audioSeconds: 0, seconds: 0)
            context.logger.warning("could not decode the chunk again to time its text; its words are laid over its speech", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return answer
        }
        try context.checkCancellation()
        let started = context.clock.now
        let words: [TimedWord]?
        do {
            words = try await aligner.align(answer.text, samples: samples, start: range.lowerBound.seconds)
        } catch {
            // A stopped job stops here; any other failure costs the times, not the answer.
            try context.checkCancellation()
            metrics.recordAlignment(.failed, audioSeconds: 0, seconds: 0)
            context.logger.warning("could not time the chunk's text; its words are laid over its speech", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return answer
        }
        try context.checkCancellation()
        let seconds = (context.clock.now - started).seconds
        metadata["seconds"] = "\(Self.rounded(seconds))"
        guard let words else {
            metrics.recordAlignment(.unmatched, audioSeconds: range.length.seconds, seconds: seconds)
            context.logger.notice("the chunk's text does not fit its audio well enough to take times from it; its words are laid over its speech", metadata: metadata)
            return answer
        }
        metrics.recordAlignment(.aligned, audioSeconds: range.length.seconds, seconds: seconds)
        let heard = words.filter { !$0.estimated }.count
        context.logger.info("timed the chunk's text by aligning it with the audio", metadata: metadata.merging([
            "words": "\(words.count)", "heard": "\(heard)",
        ]) { $1 })
        var result = answer
        result.words = words
        return result
    }
}
