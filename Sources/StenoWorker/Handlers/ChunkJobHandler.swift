import Foundation
import Logging
import StenoCore
import StenoMedia
import StenoPostgres
import StenoStore
import StenoTranscription
import StenoVoice

/// The chunk job: encodes the chunk's range into memory, transcribes it, and stores text,
/// segments, words (on the media's clock) and usage. A chunk that encodes over the upload limit
/// is split into two new chunks with jobs of their own instead; it is never sent as is.
public struct ChunkJobHandler: JobHandler {
    let store: WorkStore
    let extraction: ExtractionLimiter
    let planner: ChunkPlanner
    /// Splitting a chunk finds the speech in each piece again; nil with speech detection off.
    let voice: SileroModel?
    /// Reviews each answer against the chunk's detected speech; nil with speech detection off.
    let gate: AnswerGate?
    /// The audio is played this much faster before it is sent (`STENO_SPEEDUP`); 1 sends it as is.
    let speedup: Double
    let format: ChunkFormat
    let transcription: FallbackTranscriptionClient
    let metrics: WorkerMetrics
    let sourceTimeout: Duration
    let answerWriteWindow: Duration
    let availability: BackendAvailability
    /// Requests in flight towards the backend, narrowed when they time out (AIMD).
    let requests: AdaptiveLimiter

    init(
        store: WorkStore, extraction: ExtractionLimiter, planner: ChunkPlanner, voice: SileroModel?, gate: AnswerGate?, speedup: Double = 1,
        format: ChunkFormat,
        transcription: FallbackTranscriptionClient, metrics: WorkerMetrics, availability: BackendAvailability, requests: AdaptiveLimiter,
        sourceTimeout: Duration = MediaFile.defaultSourceTimeout, answerWriteWindow: Duration = .seconds(120)
    ) {
        self.availability = availability
        self.requests = requests
        self.answerWriteWindow = answerWriteWindow
        self.metrics = metrics
        self.sourceTimeout = sourceTimeout
        self.store = store
        self.extraction = extraction
        self.planner = planner
        self.voice = voice
        self.gate = gate
        self.speedup = speedup
        self.format = format
        self.transcription = transcription
    }

    /// How often a job waiting for another attempt's answer looks again.
    static let answerHeldRecheck = Duration.milliseconds(250)

    public func run(_ context: JobContext) async throws -> JobOutcome {
        let chunkID = try context.required(context.job.chunkID, "chunk id")
        guard let chunk = try await store.chunk(chunkID) else { return .cancelled(reason: "the chunk was deleted") }
        if chunk.isCancelled { return .cancelled(reason: "the chunk, its chapter or its media is cancelled") }
        if chunk.state.isCovered {
            // A second run of a finished chunk: never pay for the same audio twice.
            try await store.completeOnly(context.lease)
            return .completed
        }
        var said = false
        starting: while true {
            switch try await store.markRunning(chunkID: chunkID) {
            case .started:
                break starting
            case .answerHeldElsewhere:
                // An earlier attempt, which lost its lease, has the answer and is writing it:
                // uploading now would pay for the same audio twice. Its write clears the mark,
                // or the mark runs out if that worker died.
                if !said {
                    context.logger.info("another attempt holds this chunk's answer; waiting for it to be stored")
                    said = true
                }
                if await !context.cancellation.sleep(for: Self.answerHeldRecheck) {
                    throw WorkerError(.stopped, .cancelled, "the job was stopped", jobID: context.job.id)
                }
            case .notRunnable:
                // Answered by an earlier attempt as this one started (its write had the row): done.
                guard let now = try await store.chunk(chunkID), now.state.isCovered else {
                    return .cancelled(reason: "the chunk, its chapter or its media is cancelled")
                }
                try await store.completeOnly(context.lease)
                return .completed
            }
        }
        let range = MediaTime(storedSeconds: chunk.start)..<MediaTime(storedSeconds: chunk.end)
        let file = MediaFile(MediaLocation(chunk.source), sourceTimeout: sourceTimeout, logger: context.logger)
        let limit = planner.configuration.maxUploadBytes
        // The encoded bytes are held once: the request shares them and curl reads them in place,
        // then drops them once sent, so a job waiting for the backend's answer holds no audio
        // (3.6 MB for 180 s of FLAC); a retry encodes the chunk again.
        let encode: @Sendable () async throws -> [UInt8] = { [extraction, format] in
            try await extraction.run { try await file.encode(range, format: format, sizeLimit: limit, speed: speedup).data }
        }
        let upload: UploadAudio
        do {
            upload = UploadAudio(try await encode(), remake: encode)
        } catch let error as MediaError where error.code == .encodedTooLarge {
            return try await split(chunk, range: range, file: file, context: context, error: error)
        }
        // The open input holds buffers and codecs: closed before the upload, so that open
        // inputs are bounded by the extraction slots, not by the jobs waiting on the backend.
        await file.close()
        try context.checkCancellation()
        let encodedBytes = upload.count
        var request = TranscriptionRequest(
            upload: upload, format: audioFormat, duration: .seconds((chunk.end - chunk.start) / speedup),
            language: chunk.language, prompt: chunk.prompt, model: chunk.model)
        if let watch = context.leaseWatch {
            let cancellation = context.cancellation
            request.beforeEachRequest = { () async throws(TranscriptionError) in try await watch.admitUpload(cancellation: cancellation) }
        }
        let result = try await requests.withPermit(classify: Self.congestion) {
            try await transcription.transcribe(request, primaryFailures: max(0, context.job.attempt - 1), cancellation: context.cancellation)
        }
        metrics.recordTranscription(latency: result.latency, audioSeconds: chunk.end - chunk.start)
        if availability.answered(result.backend) {
            // The probe (or a job that was already running) got an answer: the fleet resumes.
            if let since = try await store.endOutage(backend: result.backend) {
                context.logger.notice("the backend answers again; chunk jobs resume", metadata: [
                    "backend": "\(result.backend)", "down_for_seconds": "\(Int(Date().timeIntervalSince(since)))",
                ])
            }
        }
        let stored = try await gated(Self.stored(result, chunk: chunk.start...chunk.end, encodedBytes: encodedBytes, speedup: speedup), result, chunk, request, context)
        // Marked before the write, which may wait on the chapter's lock or on the database: if
        // this attempt loses its lease meanwhile, the job's next attempt waits for this answer.
        do {
            try await store.holdAnswer(chunkID: chunk.id, for: answerWriteWindow)
        } catch {
            context.logger.warning("could not mark the chunk's answer as held; storing it anyway", metadata: ["error": "\(error)"])
        }
        // From here a lost lease must not stop the job: the answer is kept whichever attempt holds it.
        let disposal = try await context.answerHold.holding {
            try await keepingTheAnswer(context) { try await store.storeTranscription(context.lease, chunk: chunk, stored) }
        }
        let logged: Logger.Metadata = [
            "chunk.index": "\(chunk.index)", "bytes": "\(encodedBytes)", "words": "\(stored.words.count)",
            "backend": "\(result.backend)", "latency": "\(result.latency)",
        ]
        switch disposal {
        case .stored(let merging):
            context.logger.info("transcribed chunk", metadata: logged.merging(["merge_enqueued": "\(merging)"]) { $1 })
            return .completed
        case .keptAfterLeaseLost(let merging):
            context.logger.warning(
                "kept the chunk's answer although the job's lease was lost; its new holder will find the chunk done",
                metadata: logged.merging(["merge_enqueued": "\(merging)"]) { $1 })
            throw StoreError(.leaseLost, "the lease of \(context.lease) was lost after the answer was stored", jobID: context.job.id)
        case .discarded(let reason):
            metrics.recordDiscardedAnswer(reason)
            context.logger.warning("discarded the chunk's answer", metadata: logged.merging(["reason": "\(reason.rawValue)"]) { $1 })
            if reason == .alreadyAnswered {
                try await store.completeOnly(context.lease, answerDiscarded: reason)
                return .completed
            }
            return .cancelled(reason: "the chunk was cancelled, split or failed while its answer was on the way", answerDiscarded: reason)
        }
    }

    /// The answer as the gates pass it. An answer that fails a gate is asked for once more at
    /// `retryTemperature` (a backend that decoded music as words often decodes it as nothing
    /// when it samples); of the two, the one that loses fewer characters to the gates is kept,
    /// and what it loses is stored as flagged. Both are paid for and counted.
    private func gated(
        _ first: WorkStore.StoredTranscription, _ result: TranscriptionResult, _ chunk: WorkStore.ChunkRecord,
        _ request: TranscriptionRequest, _ context: JobContext
    ) async throws -> WorkStore.StoredTranscription {
        guard let gate, let speech = chunk.speech else { return first }
        let range = chunk.start...chunk.end
        let review = Self.review(first, result, chunk: range, speech: speech, gate: gate)
        guard !review.passed else { return first }
        context.logger.notice("the answer failed a gate; asking once more at a higher temperature", metadata: [
            "chunk.index": "\(chunk.index)", "reasons": "\(Set(review.flagged.map(\.reason.rawValue)).sorted().joined(separator: ","))",
            "flagged_characters": "\(review.flaggedCharacters)",
        ])
        var again = request
        again.temperature = Self.retryTemperature
        var chosen = (stored: first, review: review)
        var paid = (seconds: first.usageSeconds, cost: first.costUSD)
        do {
            let second = try await requests.withPermit(classify: Self.congestion) {
                try await transcription.transcribe(again, primaryFailures: max(0, context.job.attempt - 1), cancellation: context.cancellation)
            }
            let stored = Self.stored(second, chunk: range, encodedBytes: first.encodedBytes, speedup: speedup)
            let secondReview = Self.review(stored, second, chunk: range, speech: speech, gate: gate)
            // Both asks were billed: by the backend's usage where it said, else by the audio sent.
            let length = (chunk.end - chunk.start) / speedup
            paid = ((paid.seconds ?? length) + (stored.usageSeconds ?? length), Self.sum(paid.cost, stored.costUSD))
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
        stored.usageSeconds = paid.seconds
        stored.costUSD = paid.cost
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

    private static func sum(_ left: Double?, _ right: Double?) -> Double? {
        left == nil && right == nil ? nil : (left ?? 0) + (right ?? 0)
    }

    /// Writes an answer, retrying while the database is unreachable (a restart, a failover)
    /// with the answer held in memory: the audio is never uploaded again for a database blip.
    private func keepingTheAnswer(
        _ context: JobContext, _ write: () async throws -> AnswerDisposal
    ) async throws -> AnswerDisposal {
        let deadline = ContinuousClock.now + answerWriteWindow
        var delay = Duration.milliseconds(250)
        while true {
            do {
                return try await write()
            } catch let error as PostgresError where error.isTransient {
                guard ContinuousClock.now + delay < deadline else {
                    metrics.recordDiscardedAnswer(.database)
                    context.logger.error("could not store the chunk's answer; it is lost", metadata: ["error": "\(error)"])
                    throw error
                }
                context.logger.warning("could not store the chunk's answer; retrying with it held in memory", metadata: [
                    "error": "\(error)", "retry_in": "\(delay)",
                ])
                try? await Task.sleep(for: delay)
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

    private var audioFormat: AudioFormat {
        switch format {
        case .flac: .flac
        case .opus: .ogg
        }
    }

    private func split(
        _ chunk: WorkStore.ChunkRecord, range: Range<MediaTime>, file: MediaFile, context: JobContext, error: MediaError
    ) async throws -> JobOutcome {
        // Halves gain the overlap, so below this they stop shrinking: the limit is too small.
        guard range.upperBound - range.lowerBound > MediaTime(seconds: 1) + planner.configuration.overlap else {
            throw MediaError(
                .encodedTooLarge,
                "a chunk of \(chunk.end - chunk.start) s still encodes to more than \(planner.configuration.maxUploadBytes) bytes; the upload limit is too small for this format",
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

    /// The result on the media's clock: the backend's times are relative to the chunk's start,
    /// and are clamped to the chunk's audio, since a backend can stamp a segment past the end of
    /// what it was sent (one third-party server answered 20 s past a chunk's end).
    /// With a `speedup`, the backend heard the chunk that much faster: its times are scaled back.
    static func stored(
        _ result: TranscriptionResult, chunk: ClosedRange<Double>, encodedBytes: Int, speedup: Double = 1
    ) -> WorkStore.StoredTranscription {
        let transcription = result.transcription
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
}
