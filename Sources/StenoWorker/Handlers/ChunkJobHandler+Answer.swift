import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoPostgres
import StenoStore
import StenoTranscription

/// The answer on the media's clock, its write held through database blips, and what a request's end says about the backend's load.
extension ChunkJobHandler {
    /// The result on the media's clock: the backend's times are relative to the chunk's start,
    /// and are clamped to the chunk's audio, since a backend can stamp a segment past the end of
    /// what it was sent (one third-party server answered 20 s past a chunk's end).
    /// With a `speedup`, the backend heard the chunk that much faster: its times are scaled back.
    static func stored(
        _ result: TranscriptionResult, chunk span: Range<MediaTime>, encodedBytes: Int, speedup: Double = 1
    ) -> WorkStore.StoredTranscription {
        let transcription = result.transcription
        let chunk = span.seconds
        func onTheMediaClock(_ offset: Double) -> Double { min(max(chunk.lowerBound + offset * speedup, chunk.lowerBound), chunk.upperBound) }
        return WorkStore.StoredTranscription(
            text: transcription.text.trimmingCharacters(in: .whitespacesAndNewlines),
            segments: transcription.segments.map {
                let start = onTheMediaClock($0.start)
                return TimedSegment(start: start, end: max(start, onTheMediaClock($0.end)), text: $0.text.trimmingCharacters(in: .whitespaces))
            },
            words: BackendWords.normalized(
                transcription.words.map {
                    let start = onTheMediaClock($0.start)
                    return (word: $0.word, start: start, end: max(start, onTheMediaClock($0.end)))
                },
                text: transcription.text),
            encodedBytes: encodedBytes,
            backend: result.backend,
            model: result.model,
            usageSeconds: transcription.usage?.seconds ?? transcription.duration,
            costUSD: result.estimatedCost)
    }

    /// Writes an answer, retrying while the database is unreachable (a restart, a failover)
    /// with the answer held in memory: the audio is never uploaded again for a database blip.
    func keepingTheAnswer(
        _ context: JobContext, _ write: () async throws -> AnswerDisposal
    ) async throws -> AnswerDisposal {
        let clock = context.clock
        let deadline = clock.now + answerWriteWindow
        var delay = Duration.milliseconds(250)
        while true {
            do {
                return try await write()
            } catch let error as PostgresError where error.isTransient {
                guard clock.now + delay < deadline else {
                    metrics.recordDiscardedAnswer(.database)
                    context.logger.error("could not store the chunk's answer; it is lost", metadata: ["error": "\(error)"])
                    throw error
                }
                context.logger.warning("could not store the chunk's answer; retrying with it held in memory", metadata: [
                    "error": "\(error)", "retry_in": "\(delay)",
                ])
                try? await clock.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    /// What a request's end says about the backend's load: an answer (any HTTP status) widens
    /// the window, a timeout or a stall narrows it, anything else leaves it.
    static func congestion(_ result: Result<TranscriptionResult, any Error>) -> AdaptiveLimiter.Outcome {
        switch result {
        case .success: return .answered
        case .failure(let error as TranscriptionError) where error.status != nil: return .answered
        case .failure(let error as TranscriptionError) where error.meansBackendSlow: return .timedOut
        case .failure: return .other
        }
    }
}
