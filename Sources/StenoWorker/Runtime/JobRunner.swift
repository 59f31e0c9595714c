import Foundation
import Logging
import StenoCore
import StenoInfrastructure
import StenoObjectStore
import StenoPostgres
import StenoStore

/// Runs one claimed job through its handler and records how it ended: completed, retried later,
/// failed with its chunk, chapter and media, cancelled, or handed back at shutdown.
struct JobRunner: Sendable {
    let handlers: [JobKind: any JobHandler]
    let store: WorkStore
    let configuration: WorkerConfiguration
    let inFlight: InFlightJobs
    /// Pauses and outages the failures find; it also says whether outages pause chunk jobs
    /// (only without a fallback, which otherwise takes the chunks the primary cannot answer).
    let availability: BackendAvailability
    /// The chunk uploads' AIMD window: a timeout with the window already at one request is an outage.
    let requests: AdaptiveLimiter
    let metrics: WorkerMetrics
    let logger: Logger

    func run(_ job: Job, lease: JobLease, signal: CancellationSignal, answerHold: AnswerHold = AnswerHold()) async {
        var logger = logger
        logger[metadataKey: "job.id"] = "\(job.id)"
        logger[metadataKey: "job.kind"] = "\(job.kind.rawValue)"
        logger[metadataKey: "job.attempt"] = "\(job.attempt)"
        if let mediaID = job.mediaID { logger[metadataKey: "media.id"] = "\(mediaID)" }
        var context = JobContext(job: job, lease: lease, cancellation: signal, logger: logger, answerHold: answerHold, clock: inFlight.clock)
        let inFlight = inFlight
        context.leaseWatch = LeaseWatch(lease: configuration.lease, sinceRenewal: { inFlight.sinceRenewal(job.id) }, clock: inFlight.clock)
        do {
            guard let handler = handlers[job.kind] else {
                throw WorkerError(.malformedJob, .permanent, "no handler for jobs of kind \(job.kind.rawValue)", jobID: job.id)
            }
            // The handler runs in a task of its own so that stopping the job also cancels the
            // task, which is what interrupts a decode in FFmpeg.
            let work = Task { try await handler.run(context) }
            let registration = signal.onCancel { work.cancel() }
            defer { signal.removeHandler(registration) }
            switch try await work.value {
            case .completed:
                metrics.recordJob(job.kind, outcome: .succeeded)
                logger.debug("job succeeded")
            case .cancelled(let reason, let answerDiscarded):
                try await store.end([lease], as: .cancelled(message: reason, answerDiscarded: answerDiscarded))
                metrics.recordJob(job.kind, outcome: .cancelled)
                logger.info("job cancelled", metadata: ["reason": "\(reason)"])
            }
        } catch {
            await ended(job, lease: lease, error: error, logger: logger)
        }
    }

    private func ended(_ job: Job, lease: JobLease, error: any Error, logger: Logger) async {
        // A failed read of the object store may be the store's (down) or the fleet's (credentials), not this media's.
        let error = await configuration.mediaSources.explained(error)
        do {
            if let reason = inFlight.stopReason(job.id) {
                try await stopped(job, lease: lease, reason: reason, logger: logger)
                return
            }
            if Self.isLostLease(error) {
                metrics.recordJob(job.kind, outcome: .leaseLost)
                logger.warning("lost the job's lease; its writes were rolled back")
                return
            }
            let failure = JobFailure(error)
            if failure.failureClass == .internal || error is PostgresError {
                // The stored reason is in plain words; the log keeps the driver's or library's own text.
                logger.debug("job failure detail", metadata: ["error": "\(String(reflecting: error))"])
            }
            metrics.recordFailure(failure.failureClass)
            let action = FailureAction.decide(
                failure.failureClass, attempt: job.attempt, kind: job.kind, backendDown: failure.backendDown,
                backendSlow: failure.backendSlow, requestWindow: requests.limit, outagesPause: availability.outagesPause,
                retryAfter: failure.retryAt.map { Duration.seconds(max(0.0, $0.timeIntervalSinceNow)) }, backoff: configuration.retryBackoff,
                configurationPause: configuration.configurationPause, storeDown: failure.storeDown)
            switch action {
            case .postponeForOutage:
                try await postpone(job, lease: lease, failure: failure, logger: logger)
            case .waitForStore(let delay):
                if try await !store.end([lease], as: .waiting(after: delay, failure.storeFailure)).isEmpty {
                    metrics.recordJob(job.kind, outcome: .postponed)
                }
                logger.warning("the object store does not answer; the job waits for it, its attempt given back", metadata: [
                    "error": "\(failure.message)", "retry_in_seconds": "\(delay.seconds)",
                ])
            case .retry(let delay):
                try await retry(job, lease: lease, after: delay, failure: failure, logger: logger)
            case .pauseBackend(let pauseFor):
                availability.pause(failure.backend ?? "primary", for: pauseFor)
                logger.error("the backend rejected the configuration; not claiming chunk jobs for a while", metadata: [
                    "backend": "\(failure.backend ?? "primary")", "paused_seconds": "\(pauseFor.seconds)",
                    "error": "\(failure.message)",
                ])
                try await retry(job, lease: lease, after: pauseFor, failure: failure, logger: logger)
            case .release:
                // Not stopped by this worker: the task was cancelled, which only shutdown does.
                try await store.end([lease], as: .released)
                metrics.recordJob(job.kind, outcome: .released)
            case .fail:
                try await store.end([lease], as: .failed(failure.storeFailure))
                metrics.recordJob(job.kind, outcome: .failed)
                logger.error("job failed", metadata: ["error_class": "\(failure.failureClass.rawValue)", "error": "\(failure.message)"])
            }
        } catch {
            // The job stays running under this worker's lease until it expires and is rescued.
            logger.error("could not record how the job ended", metadata: ["error": "\(error)"])
        }
    }

    /// The backend is down: the fleet stops sending it chunks until a probe gets an answer, and
    /// this job waits in the queue with its attempt given back, however long the outage lasts.
    private func postpone(_ job: Job, lease: JobLease, failure: JobFailure, logger: Logger) async throws {
        let backend = failure.backend ?? "primary"
        let outage = try await store.recordOutage(backend: backend, reason: failure.message, probe: configuration.outageProbe)
        availability.learn(outage)
        if try await !store.end([lease], as: .postponed(until: outage.probeAt, failure.storeFailure)).isEmpty {
            metrics.recordJob(job.kind, outcome: .postponed)
        }
        logger.warning("the backend is down; the fleet sends it no chunks until a probe gets an answer", metadata: [
            "backend": "\(backend)", "error": "\(failure.message)", "failures": "\(outage.failures)",
            "next_probe": "\(outage.probeAt)", "down_since": "\(outage.since)",
        ])
    }

    private func retry(_ job: Job, lease: JobLease, after delay: Duration, failure: JobFailure, logger: Logger) async throws {
        let ended = try await store.end([lease], as: .retry(after: delay, failure.storeFailure)).first
        switch JobStore.RetryDecision(ended) {
        case .requeued(let runAt):
            metrics.recordJob(job.kind, outcome: .retry)
            logger.warning("job will run again", metadata: [
                "error_class": "\(failure.failureClass.rawValue)", "error": "\(failure.message)", "run_at": "\(runAt)",
            ])
        case .failed:
            metrics.recordJob(job.kind, outcome: .failed)
            logger.error("job failed after its last attempt", metadata: ["error": "\(failure.message)"])
        case .cancelled:
            logger.info("job cancelled while it failed")
        case .leaseLost:
            logger.warning("lost the job's lease before recording the retry")
        }
    }

    private func stopped(_ job: Job, lease: JobLease, reason: StopReason, logger: Logger) async throws {
        switch reason {
        case .cancelRequested:
            try await store.end([lease], as: .cancelled(message: "cancelled by request"))
            metrics.recordJob(job.kind, outcome: .cancelled)
            logger.info("job cancelled by request")
        case .leaseLost:
            metrics.recordJob(job.kind, outcome: .leaseLost)
            logger.warning("lost the job's lease; dropped its work")
        case .shutdown:
            try await store.end([lease], as: .released)
            metrics.recordJob(job.kind, outcome: .released)
            logger.info("handed the job back at shutdown")
        }
    }

    /// The job's writes were refused because another worker holds its lease now.
    static func isLostLease(_ error: any Error) -> Bool {
        (error as? StoreError)?.code == .leaseLost
    }
}
