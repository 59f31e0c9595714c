import Foundation
public import Logging
import StenoCore
public import StenoInfrastructure
import Synchronization

/// Sends chunks to one OpenAI-compatible backend and returns their transcriptions, or an error
/// in exactly one failure class.
///
/// Within one call (one attempt at a chunk) transient failures are retried with exponential
/// backoff and jitter, or after the backend's `Retry-After`, within the attempt's time limit.
/// A `Retry-After` longer than the attempt can wait comes back as an error with `retryAt` set.
///
/// All network work runs on the shared curl engine thread; callers only await. Many calls may
/// run at once from any number of tasks.
public final class TranscriptionClient: Sendable {
    public let configuration: TranscriptionBackendConfiguration
    private let logger: Logger
    private let redactor: SecretRedactor
    private let engine: CurlTransferEngine
    /// `json` for each model the backend refused `verbose_json` for with a 400 naming the
    /// response format.
    private let learnedFormats = Mutex<[String: TranscriptionResponseFormat]>([:])
    /// Admits each request when the backend has a rate limit.
    private let gate: (any TranscriptionRequestGate)?
    /// Times the attempt's limit and the waits between retries.
    private let clock: any MonotonicClock

    public init(
        configuration: TranscriptionBackendConfiguration, gate: (any TranscriptionRequestGate)? = nil,
        clock: any MonotonicClock = .continuous, logger: Logger = Logger(label: "steno.transcription")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.gate = configuration.rateLimit.isEmpty ? nil : gate
        var logger = logger
        logger[metadataKey: "backend"] = "\(configuration.name)"
        self.logger = logger
        redactor = SecretRedactor(secrets: configuration.secrets)
        engine = .shared
    }

    /// The format asked for: the configured one, except `json` for models known to answer JSON
    /// only (OpenAI's gpt-4o transcribe models and their successors) or once the backend has
    /// refused `verbose_json`. The merge then times the text from the chunk itself.
    public var responseFormat: TranscriptionResponseFormat { responseFormat(for: configuration.model) }

    /// The format asked for with `model`.
    public func responseFormat(for model: String) -> TranscriptionResponseFormat {
        if let learned = learnedFormats.withLock({ $0[model] }) { return learned }
        if configuration.responseFormat == .verboseJSON && Self.answersJSONOnly(model: model) { return .json }
        return configuration.responseFormat
    }

    /// The model a request is sent with: its own, else the configured one.
    func model(for request: TranscriptionRequest) -> String {
        request.model.flatMap { $0.isEmpty ? nil : $0 } ?? configuration.model
    }

    /// Models that refuse `verbose_json`: OpenAI's transcribe models other than whisper-1.
    static func answersJSONOnly(model: String) -> Bool {
        let model = model.lowercased()
        return model.hasPrefix("gpt-") && model.contains("transcribe")
    }

    /// A 400 that says the response format is what the backend refuses.
    static func refusesFormat(_ error: TranscriptionError) -> Bool {
        guard error.status == 400 else { return false }
        let words = [error.backendMessage, error.backendCode].compactMap { $0?.lowercased() }.joined(separator: " ")
        return words.contains("response_format") || words.contains("verbose_json")
    }

    /// Transcribes one chunk.
    ///
    /// Stops within milliseconds, with a `cancelled` error, when `cancellation` is cancelled or the
    /// calling task is; no request starts after that.
    public func transcribe(
        _ request: TranscriptionRequest, cancellation: CancellationSignal = CancellationSignal()
    ) async throws(TranscriptionError) -> TranscriptionResult {
        // A signal of our own, so that task cancellation stops this call without cancelling the
        // caller's signal, which may stand for the whole job.
        let signal = CancellationSignal(linkedTo: cancellation)
        defer { signal.unlink(from: cancellation) }
        let outcome = await withTaskCancellationHandler {
            await attempt(request, signal: signal)
        } onCancel: {
            signal.cancel()
        }
        return try outcome.get()
    }

    private func attempt(_ request: TranscriptionRequest, signal: CancellationSignal) async -> Result<TranscriptionResult, TranscriptionError> {
        guard HTTPRequest.isHTTP(configuration.endpointURL) else {
            return .failure(TranscriptionError(
                .invalidConfiguration, .configuration, "the backend URL \(configuration.displayURL) is not http:// or https://",
                backend: configuration.name))
        }
        if request.task == .translate, configuration.translationURL == nil {
            // The media asked for what this backend cannot do; the backend still transcribes
            // everything else, so this fails the chunk, not the fleet's use of the backend.
            return .failure(TranscriptionError(
                .invalidConfiguration, .permanent,
                "the backend's path \(configuration.path) has no translations endpoint beside it; set STENO_BACKEND_TRANSLATION_PATH, or enqueue the media without --translate",
                backend: configuration.name))
        }
        var deadline = clock.now + configuration.limits.attempt
        let policy = configuration.retry
        var requests = 0
        var retries = 0
        let model = model(for: request)

        while true {
            if signal.isCancelled {
                return .failure(cancelled(requests: requests))
            }
            let remaining = deadline - clock.now
            guard remaining > .zero else {
                return .failure(TranscriptionError(
                    .attemptTimeLimit, .transient, "the attempt's time limit of \(configuration.limits.attempt.formatted) passed",
                    backend: configuration.name, requests: requests))
            }

            // Waiting for the fleet's budget, or for the job's lease to be renewed, is not the
            // backend's slowness.
            let waitStarted = clock.now
            do throws(TranscriptionError) {
                if let gate {
                    try await gate.admit(
                        backend: configuration.name, limit: configuration.rateLimit,
                        audioSeconds: request.duration?.seconds ?? 0, cancellation: signal)
                }
                try await request.beforeEachRequest?()
            } catch {
                var error = error
                error.backend = error.backend ?? configuration.name
                error.requests = requests
                return .failure(error)
            }
            deadline += clock.now - waitStarted
            requests += 1
            let started = clock.now
            var error: TranscriptionError
            switch await send(request, model: model, timeout: min(configuration.limits.request, remaining), signal: signal) {
            case .success(let transcription):
                let latency = clock.now - started
                logger.debug("transcribed chunk", metadata: [
                    "requests": "\(requests)", "latency_ms": "\(latency.milliseconds)", "segments": "\(transcription.segments.count)",
                ])
                var result = TranscriptionResult(
                    transcription: transcription, backend: configuration.name, model: model,
                    requests: requests, latency: latency, estimatedCost: cost(of: transcription, request: request))
                result.responseFormat = responseFormat(for: model)
                return .success(result)
            case .failure(let failure):
                error = failure
                error.requests = requests
            }
            if responseFormat(for: model) == .verboseJSON && Self.refusesFormat(error) {
                // Learned once per client and model and remembered: every later chunk asks for `json`.
                learnedFormats.withLock { $0[model] = .json }
                logger.notice("the backend refuses verbose_json; asking for json from now on", metadata: [
                    "model": "\(model)", "backend_message": "\(error.backendMessage ?? "")",
                ])
                continue
            }

            guard error.failureClass == .transient, !error.retryForbiddenByBackend else {
                log(error, retryIn: nil)
                return .failure(error)
            }
            guard retries < policy.maximumRetries else {
                log(error, retryIn: nil)
                return .failure(error)
            }
            let timeLeft = deadline - clock.now
            let delay: Duration
            if let asked = error.retryAfter {
                guard asked <= min(timeLeft, configuration.limits.longestRetryAfter) else {
                    // Sleeping that long would hold the job's lease for nothing: let the job be
                    // requeued for the time the backend named.
                    error.retryAt = clock.date.addingTimeInterval(asked.seconds)
                    log(error, retryIn: nil)
                    return .failure(error)
                }
                delay = asked
            } else {
                delay = policy.backoff.delay(afterAttempt: retries + 1)
                guard delay < timeLeft else {
                    log(error, retryIn: nil)
                    return .failure(error)
                }
            }
            log(error, retryIn: delay)
            retries += 1
            guard await signal.sleep(for: delay, clock: clock) else {
                return .failure(cancelled(requests: requests))
            }
        }
    }

    /// The transfer for one request. The audio's bytes are held here only until the transfer has
    /// them: from then on curl's part is their only holder, and drops them once sent.
    private func makeTransfer(
        for request: TranscriptionRequest, model: String, format: TranscriptionResponseFormat, timeout: Duration, signal: CancellationSignal
    ) async -> Result<CurlTransfer, TranscriptionError> {
        let audio: [UInt8]
        do {
            audio = try await request.audio.bytesForTransfer()
        } catch {
            return .failure(TranscriptionError(
                .clientFailure, .internal, "the chunk's audio could not be made again for this request: \(error)", backend: configuration.name))
        }
        do throws(CurlCallError) {
            return .success(try CurlTransfer(
                request: httpRequest(for: request, audio: audio, model: model, format: format, timeout: timeout), cancellation: signal))
        } catch {
            return .failure(TranscriptionError(.clientFailure, .internal, error.description, backend: configuration.name))
        }
    }

    /// One HTTP request with `model`, in the format that model is asked for now (a refusal of
    /// `verbose_json` changes it between two requests), its answer read into a transcription or
    /// classified as a failure.
    private func send(
        _ request: TranscriptionRequest, model: String, timeout: Duration, signal: CancellationSignal
    ) async -> Result<Transcription, TranscriptionError> {
        let format = responseFormat(for: model)
        let transfer: CurlTransfer
        switch await makeTransfer(for: request, model: model, format: format, timeout: timeout, signal: signal) {
        case .success(let made): transfer = made
        case .failure(let error): return .failure(error)
        }
        switch await engine.perform(transfer) {
        case .failure(let failure):
            return .failure(.classify(failure, backend: configuration.name, redactor: redactor))
        case .success(let response) where (200..<300).contains(response.status):
            do throws(TranscriptionResponseParser.Failure) {
                return .success(try TranscriptionResponseParser.parse(
                    response.body, format: format, chunkDuration: request.duration))
            } catch {
                switch error {
                case .malformed(let reason, let backendMessage):
                    return .failure(TranscriptionError(
                        .malformedResponse, .transient, "the backend's answer could not be read: \(reason)",
                        backend: configuration.name, status: response.status, backendMessage: backendMessage.map(redactor.redact),
                        requestID: response.header("x-request-id").map(redactor.redact)))
                }
            }
        case .success(let response):
            return .failure(.classify(response, backend: configuration.name, redactor: redactor, now: clock.date))
        }
    }

    private func cancelled(requests: Int) -> TranscriptionError {
        TranscriptionError(.cancelled, .cancelled, "the transcription was cancelled", backend: configuration.name, requests: requests)
    }

    private func cost(of transcription: Transcription, request: TranscriptionRequest) -> Double? {
        guard let price = configuration.pricePerAudioMinute else { return nil }
        guard let seconds = transcription.usage?.seconds ?? request.duration?.seconds ?? transcription.duration else { return nil }
        return price * seconds / 60
    }

    private func log(_ error: TranscriptionError, retryIn delay: Duration?) {
        var metadata: Logger.Metadata = [
            "failure_class": "\(error.failureClass.rawValue)",
            "error_code": "\(error.code)",
            "requests": "\(error.requests)",
            "error": "\(error)",
        ]
        if let status = error.status { metadata["http_status"] = "\(status)" }
        if let requestID = error.requestID { metadata["request_id"] = "\(requestID)" }
        if let delay {
            metadata["retry_in_ms"] = "\(delay.milliseconds)"
            logger.info("transcription request failed, retrying", metadata: metadata)
        } else if error.failureClass == .cancelled {
            logger.debug("transcription cancelled", metadata: metadata)
        } else {
            logger.warning("transcription failed", metadata: metadata)
        }
    }
}
