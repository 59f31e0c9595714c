import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoObjectStore
import StenoStore
import StenoTranscription

/// Speech the answer left without words, asked for again span by span.
extension ChunkJobHandler {
    /// The answer with the words of speech it left uncovered (`SpeechCoverage`): each span is
    /// sent alone, with a second of the audio before it and the text before it as the prompt,
    /// once. What comes back passes the gates, and its words are put in the span's place. A
    /// span that comes back empty again is logged and counted, and the answer stands. Every
    /// ask is paid for and counted in the chunk's usage.
    func recovered(
        _ answer: WorkStore.StoredTranscription, _ chunk: WorkStore.ChunkRecord, _ request: TranscriptionRequest, timed: Bool = true,
        _ context: JobContext
    ) async throws -> WorkStore.StoredTranscription {
        guard let coverage, let speech = chunk.speech else { return answer }
        let range = chunk.span.seconds
        var filled = SpeechCoverage.Answer(text: answer.text, segments: answer.segments, words: answer.words, timed: timed)
        let spans = coverage.uncovered(filled, speech: speech, chunk: range)
        guard !spans.isEmpty else { return answer }
        var result = answer
        let file = try await sources.open(chunk.source, expecting: chunk.sourceObject, sourceTimeout: sourceTimeout, logger: context.logger)
        for span in spans {
            let window = coverage.window(for: span, chunk: range)
            let windowRange = Self.mediaTime(window.lowerBound)..<Self.mediaTime(window.upperBound)
            let encode: @Sendable () async throws -> [UInt8] = { [extraction, format, speedup] in
                try await extraction.run { try await file.encode(windowRange, format: format, speed: speedup).data }
            }
            let metadata: Logger.Metadata = [
                "chunk.index": "\(chunk.index)", "span_start": "\(Self.rounded(span.lowerBound))", "span_end": "\(Self.rounded(span.upperBound))",
            ]
            let bytes: [UInt8]
            do {
                bytes = try await encode()
            } catch let error as MediaError where error.code != .cancelled {
                // The chunk's answer is paid for: a source that fails now (a network blip on an
                // http source) costs the span, not the answer.
                metrics.recordSpeechAskedAgain(.failed, words: 0)
                context.logger.warning("could not encode speech left without words to ask again; keeping the answer as it is", metadata: metadata.merging(["error": "\(error)"]) { $1 })
                continue
            }
            var again = TranscriptionRequest(
                upload: UploadAudio(bytes, remake: encode), format: audioFormat, duration: .seconds((window.upperBound - window.lowerBound) / speedup),
                language: request.language, prompt: coverage.prompt(for: span, in: filled, chunk: range, speech: speech, mediaPrompt: chunk.prompt),
                model: chunk.model)
            again.beforeEachRequest = request.beforeEachRequest
            again.task = request.task
            let heard: TranscriptionResult
            do {
                heard = try await requests.withPermit(classify: Self.congestion) {
                    try await transcription.transcribe(again, primaryFailures: max(0, context.job.attempt - 1), cancellation: context.cancellation)
                }
            } catch let error as TranscriptionError where error.failureClass != .cancelled {
                // The answer is paid for and stands; the span stays without words.
                metrics.recordSpeechAskedAgain(.failed, words: 0)
                context.logger.warning("asking again for speech left without words failed; keeping the answer as it is", metadata: metadata.merging(["error": "\(error)"]) { $1 })
                continue
            }
            var stored = Self.stored(heard, chunk: windowRange, encodedBytes: bytes.count, speedup: speedup)
            // Both asks were billed.
            (AnswerCost(of: result, audioSeconds: range.upperBound - range.lowerBound, speedup: speedup)
                + AnswerCost(of: stored, audioSeconds: window.upperBound - window.lowerBound, speedup: speedup)).charged(to: &result)
            if let gate {
                // Text the gates catch in the second answer is not put in the span's place.
                let review = Self.review(stored, heard, chunk: window, speech: speech, gate: gate)
                (stored.text, stored.segments, stored.words) = (review.text, review.segments, review.words)
                result.flagged += review.flagged
                metrics.recordFlagged(review.flagged)
            }
            let (next, added) = coverage.filling(
                filled, span: span, with: SpeechCoverage.Answer(text: stored.text, segments: stored.segments, words: stored.words, timed: heard.transcription.timed),
                window: window, speech: speech, chunk: range)
            filled = next
            metrics.recordSpeechAskedAgain(added > 0 ? .recovered : .empty, words: added)
            if added > 0 {
                context.logger.info("recovered words for speech the answer had left without any", metadata: metadata.merging(["words": "\(added)"]) { $1 })
            } else {
                context.logger.notice("speech left without words came back without words again; it stays so", metadata: metadata)
            }
        }
        await file.close()
        try context.checkCancellation()
        (result.text, result.segments, result.words) = (filled.text, filled.segments, filled.words)
        return result
    }

    static func mediaTime(_ seconds: Double) -> MediaTime {
        MediaTime(milliseconds: Int64((seconds * 1000).rounded()))
    }

    static func rounded(_ seconds: Double) -> String {
        String(format: "%.2f", seconds)
    }
}
