import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoPostgres
import StenoStore
import StenoTranscription

/// An answer that fails a gate, asked for once more.
extension ChunkJobHandler {
    /// The answer as the gates pass it. An answer that fails a gate is asked for once more at
    /// `retryTemperature` (a backend that decoded music as words often decodes it as nothing
    /// when it samples); of the two, the one that loses fewer characters to the gates is kept,
    /// and what it loses is stored as flagged. Both are paid for and counted.
    func gated(
        _ first: WorkStore.StoredTranscription, _ result: TranscriptionResult, _ chunk: WorkStore.ChunkRecord,
        _ request: TranscriptionRequest, _ context: JobContext
    ) async throws -> WorkStore.StoredTranscription {
        guard let gate, let speech = chunk.speech else { return first }
        let range = chunk.span.seconds
        let review = Self.review(first, result, chunk: range, speech: speech, gate: gate)
        guard !review.passed else { return first }
        context.logger.notice("the answer failed a gate; asking once more at a higher temperature", metadata: [
            "chunk.index": "\(chunk.index)", "reasons": "\(Set(review.flagged.map(\.reason.rawValue)).sorted().joined(separator: ","))",
            "flagged_characters": "\(review.flaggedCharacters)",
        ])
        var again = request
        again.temperature = Self.retryTemperature
        var chosen = (stored: first, review: review)
        // What the first ask cost, as the backend said it (nil where it did not), until a second is paid.
        var paid = AnswerCost(seconds: first.usageSeconds ?? 0, usd: first.costUSD)
        var paidSaid = first.usageSeconds != nil
        do {
            let second = try await requests.withPermit(classify: Self.congestion) {
                try await transcription.transcribe(again, primaryFailures: max(0, context.job.attempt - 1), cancellation: context.cancellation)
            }
            let stored = Self.stored(second, chunk: chunk.span, encodedBytes: first.encodedBytes, speedup: speedup)
            let secondReview = Self.review(stored, second, chunk: range, speech: speech, gate: gate)
            // Both asks were billed.
            let audio = chunk.span.length.seconds
            paid = AnswerCost(of: first, audioSeconds: audio, speedup: speedup) + AnswerCost(of: stored, audioSeconds: audio, speedup: speedup)
            paidSaid = true
            if secondReview.flaggedCharacters < review.flaggedCharacters {
                chosen = (stored, secondReview)
            }
        } catch let error as TranscriptionError where error.failureClass != .cancelled {
            // The first answer is paid for and stands, gated; a failed second ask costs it nothing.
            context.logger.warning("the second ask failed; keeping the first answer, gated", metadata: ["error": "\(error)"])
        }
        try context.checkCancellation()
        var stored = chosen.stored
        stored.text = chosen.review.text
        stored.segments = chosen.review.segments
        stored.words = chosen.review.words
        stored.flagged = chosen.review.flagged
        stored.usageSeconds = paidSaid ? paid.seconds : nil
        stored.costUSD = paid.usd
        metrics.recordFlagged(chosen.review.flagged)
        if !chosen.review.passed {
            context.logger.notice("held back text the gates caught; it is kept as flagged", metadata: [
                "chunk.index": "\(chunk.index)", "reasons": "\(Set(chosen.review.flagged.map(\.reason.rawValue)).sorted().joined(separator: ","))",
                "flagged_characters": "\(chosen.review.flaggedCharacters)",
            ])
        }
        return stored
    }

    /// Whisper's first step up its own temperature ladder (0, 0.2, 0.4, ...) after a failed decode.
    static let retryTemperature = 0.4

    static func review(
        _ stored: WorkStore.StoredTranscription, _ result: TranscriptionResult, chunk: ClosedRange<Double>, speech: [ClosedRange<Double>], gate: AnswerGate
    ) -> AnswerGate.Review {
        let segments = zip(stored.segments, result.transcription.segments).map { timed, raw in
            AnswerGate.Segment(
                start: timed.start, end: timed.end, text: timed.text, noSpeechProbability: raw.noSpeechProbability,
                averageLogProbability: raw.averageLogProbability, compressionRatio: raw.compressionRatio)
        }
        return gate.review(text: stored.text, segments: segments, words: stored.words, chunk: chunk, speech: speech)
    }
}
