import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoMedia
import StenoObjectStore
import StenoPostgres
import StenoSpeech
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
    /// Finds speech an answer left without words, to ask for again; nil with speech detection
    /// off or `STENO_RECOVER_SPEECH=off`.
    let coverage: SpeechCoverage?
    /// The audio is played this much faster before it is sent (`STENO_SPEEDUP`); 1 sends it as is.
    let speedup: Double
    let format: ChunkFormat
    let transcription: FallbackTranscriptionClient
    let metrics: WorkerMetrics
    let sourceTimeout: Duration
    /// Where recordings are read from: a path or URL, or the object store through signed links.
    let sources: MediaSources
    let answerWriteWindow: Duration
    /// When a missing liveness lock proves a worker dead: an answer held by a dead process is no
    /// longer waited for.
    let rescue: RescuePolicy
    let availability: BackendAvailability
    /// Requests in flight towards the backend, narrowed when they time out (AIMD).
    let requests: AdaptiveLimiter
    /// Measures the voices of the chunk's speech from the audio it encodes; nil with speaker
    /// detection off on this worker (`STENO_SPEAKERS=off`).
    let speakers: SpeakerPass?
    /// Times the words of answers that came as text alone; nil with alignment off
    /// (`STENO_ALIGNMENT`) or without its model.
    let aligner: TextAligner?

    init(
        store: WorkStore, extraction: ExtractionLimiter, planner: ChunkPlanner, voice: SileroModel?, gate: AnswerGate?,
        coverage: SpeechCoverage? = nil, speedup: Double = 1, format: ChunkFormat,
        transcription: FallbackTranscriptionClient, metrics: WorkerMetrics, availability: BackendAvailability, requests: AdaptiveLimiter,
        sourceTimeout: Duration = MediaFile.defaultSourceTimeout, sources: MediaSources = MediaSources(store: nil),
        answerWriteWindow: Duration = .seconds(120), rescue: RescuePolicy = RescuePolicy(), speakers: SpeakerPass? = nil,
        aligner: TextAligner? = nil
    ) {
        self.sources = sources
        self.rescue = rescue
        self.speakers = speakers
        self.aligner = aligner
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
        self.coverage = coverage
        self.speedup = speedup
        self.format = format
        self.transcription = transcription
    }

    /// How often a job waiting for another attempt's answer looks again.
    static let answerHeldRecheck = Duration.milliseconds(250)

    /// The job as a pipeline: take the chunk, cut it in two if it keeps dying with its worker,
    /// encode it (or split it), transcribe it, ask again
    /// in the media's language an answer that came back in another, pass the answer through the
    /// gates, ask again for speech it left without words, time a text-only answer's words from
    /// the audio, keep it. Each step ends the job early when it must.
    public func run(_ context: JobContext) async throws -> JobOutcome {
        let chunk: WorkStore.ChunkRecord
        switch try await take(context) {
        case .ready(let ready): chunk = ready
        case .done(let outcome): return outcome
        }
        if let outcome = try await splitIfDying(chunk, context: context) { return outcome }
        let upload: UploadAudio
        let voices: [SegmentedWindow]?
        switch try await encode(chunk, context) {
        case .ready(let ready): (upload, voices) = ready
        case .done(let outcome): return outcome
        }
        let (request, result) = try await transcribe(upload, chunk, context)
        // The language first: an answer asked again in the media's settled language is not
        // reviewed, so no gate's second ask, no ask for speech it left without words and no
        // alignment is paid for and then thrown away with it.
        let asked = try await inSettledLanguage(result, request, chunk, encodedBytes: upload.count, context)
        var stored = Self.stored(asked.result, chunk: chunk.span, encodedBytes: upload.count, speedup: speedup)
        stored.voices = voices
        var answer = try await reviewed(stored, asked.result, asked.chunk, asked.request, context)
        answer.language = asked.language
        if let earlier = asked.earlier {
            // Both asks were billed.
            (earlier + AnswerCost(of: answer, audioSeconds: chunk.span.length.seconds, speedup: speedup)).charged(to: &answer)
        }
        return try await keep(answer, chunk, latency: result.latency, context)
    }

    /// What a step hands the next, or how the job ends there.
    enum Step<Value> {
        case ready(Value)
        case done(JobOutcome)
    }

    /// Reads the chunk and marks it running. A chunk already answered completes the job without
    /// paying twice; one whose answer another attempt holds waits for that answer's write.
    private func take(_ context: JobContext) async throws -> Step<WorkStore.ChunkRecord> {
        let chunkID = try context.required(context.job.chunkID, "chunk id")
        guard let chunk = try await store.chunk(chunkID) else { return .done(.cancelled(reason: "the chunk was deleted")) }
        if chunk.isCancelled { return .done(.cancelled(reason: "the chunk, its chapter or its media is cancelled")) }
        if chunk.state.isCovered {
            // A second run of a finished chunk: never pay for the same audio twice.
            try await store.completeOnly(context.lease)
            return .done(.completed)
        }
        var said = false
        while true {
            switch try await store.markRunning(chunkID: chunkID, policy: rescue) {
            case .started:
                return .ready(chunk)
            case .answerHeldElsewhere:
                // An earlier attempt, which lost its lease, has the answer and is writing it:
                // uploading now would pay for the same audio twice. Its write clears the mark;
                // its process's death ends it (`WorkStore.answerHeld`), or it runs out.
                if !said {
                    context.logger.info("another attempt holds this chunk's answer; waiting for it to be stored")
                    said = true
                }
                if await !context.cancellation.sleep(for: Self.answerHeldRecheck, clock: context.clock) {
                    throw WorkerError(.stopped, .cancelled, "the job was stopped", jobID: context.job.id)
                }
            case .notRunnable:
                // Answered by an earlier attempt as this one started (its write had the row): done.
                guard let now = try await store.chunk(chunkID), now.state.isCovered else {
                    return .done(.cancelled(reason: "the chunk, its chapter or its media is cancelled"))
                }
                try await store.completeOnly(context.lease)
                return .done(.completed)
            }
        }
    }

    /// Encodes the chunk's range into memory, or splits a chunk that encodes over the upload limit.
    /// From the same decode, measures the voice of each piece of the chunk's speech.
    private func encode(_ chunk: WorkStore.ChunkRecord, _ context: JobContext) async throws -> Step<(UploadAudio, [SegmentedWindow]?)> {
        let range = chunk.span
        let file = try await sources.open(chunk.source, expecting: chunk.sourceObject, sourceTimeout: sourceTimeout, logger: context.logger)
        let limit = planner.configuration.maxUploadBytes
        // The encoded bytes are held once: the request shares them and curl reads them in place,
        // then drops them once sent, so a job waiting for the backend's answer holds no audio
        // (3.6 MB for 180 s of FLAC); a retry encodes the chunk again.
        let encode: @Sendable () async throws -> [UInt8] = { [extraction, format, speedup] in
            try await extraction.run { try await file.encode(range, format: format, sizeLimit: limit, speed: speedup).data }
        }
        let upload: UploadAudio
        var voices: [SegmentedWindow]?
        do {
            if let pass = speakers, chunk.speakerDetection {
                let speech = chunk.speech
                let first = try await extraction.run { [format, speedup] in
                    try await file.encode(range, format: format, sizeLimit: limit, speed: speedup) { start in
                        SpeakerSampler(pass: pass, start: start, expectedSamples: Int(range.length.seconds * 16_000), speech: speech)
                    }
                }
                upload = UploadAudio(first.chunk.data, remake: encode)
                voices = first.analysis
            } else {
                upload = UploadAudio(try await encode(), remake: encode)
            }
        } catch let error as MediaError where error.code == .encodedTooLarge {
            return .done(try await split(chunk, file: file, context: context, because: .tooLarge(error)))
        }
        // The open input holds buffers and codecs: closed before the upload, so that open
        // inputs are bounded by the extraction slots, not by the jobs waiting on the backend.
        await file.close()
        try context.checkCancellation()
        return .ready((upload, voices))
    }

    /// Sends the chunk within the AIMD window; an answer from a backend the fleet knew as down
    /// ends its outage.
    func transcribe(
        _ upload: UploadAudio, _ chunk: WorkStore.ChunkRecord, _ context: JobContext
    ) async throws -> (TranscriptionRequest, TranscriptionResult) {
        let audio = chunk.span.length.seconds
        var request = TranscriptionRequest(
            upload: upload, format: audioFormat, duration: .seconds(audio / speedup),
            language: chunk.askedLanguage, prompt: chunk.prompt, model: chunk.model)
        request.task = chunk.translate ? .translate : .transcribe
        let watch = context.leaseWatch
        let cancellation = context.cancellation
        let availability = availability
        request.beforeEachRequest = { () async throws(TranscriptionError) in
            try await watch?.admitUpload(cancellation: cancellation)
            // A job claimed before its backend refused the configuration (another job's 401)
            // would send a request already known to fail: it waits out the pause as the queued ones do.
            if let (backend, until) = availability.pause() {
                throw TranscriptionError(
                    .invalidConfiguration, .configuration,
                    "not sent: \(backend) refused this fleet's configuration, and its chunk jobs wait until \(until.formatted(.iso8601))",
                    backend: backend, retryAt: until)
            }
        }
        let result = try await requests.withPermit(classify: Self.congestion) {
            try await transcription.transcribe(request, primaryFailures: max(0, context.job.attempt - 1), cancellation: context.cancellation)
        }
        metrics.recordTranscription(latency: result.latency, audioSeconds: audio)
        if availability.answered(result.backend) {
            // The probe (or a job that was already running) got an answer: the fleet resumes.
            if let since = try await store.endOutage(backend: result.backend) {
                context.logger.notice("the backend answers again; chunk jobs resume", metadata: [
                    "backend": "\(result.backend)", "down_for_seconds": "\(Int(context.clock.date.timeIntervalSince(since)))",
                ])
            }
        }
        return (request, result)
    }

    /// Stores the answer. From the mark on, a lost lease does not stop the job: the answer is
    /// kept whichever attempt holds the job, since dropping it would mean paying for it again.
    private func keep(
        _ stored: WorkStore.StoredTranscription, _ chunk: WorkStore.ChunkRecord, latency: Duration, _ context: JobContext
    ) async throws -> JobOutcome {
        // Marked before the write, which may wait on the chapter's lock or on the database: if
        // this attempt loses its lease meanwhile, the job's next attempt waits for this answer.
        do {
            try await store.holdAnswer(chunkID: chunk.id, for: answerWriteWindow, by: context.lease)
        } catch {
            context.logger.warning("could not mark the chunk's answer as held; storing it anyway", metadata: ["error": "\(error)"])
        }
        let disposal = try await context.answerHold.holding {
            try await keepingTheAnswer(context) { try await store.storeTranscription(context.lease, chunk: chunk, stored) }
        }
        let logged: Logger.Metadata = [
            "chunk.index": "\(chunk.index)", "bytes": "\(stored.encodedBytes)", "words": "\(stored.words.count)",
            "backend": "\(stored.backend)", "latency": "\(latency)",
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

    var audioFormat: AudioFormat {
        switch format {
        case .flac: .flac
        case .opus: .ogg
        }
    }
}
