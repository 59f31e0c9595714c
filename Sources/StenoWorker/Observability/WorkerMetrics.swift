import CoreMetrics
import Prometheus
import StenoCore

/// The worker's metrics, recorded through swift-metrics into a Prometheus registry of this
/// worker's own (no global bootstrap, so several runtimes in one process keep theirs apart):
/// jobs by kind and outcome, failures by class, backend latency, audio seconds transcribed, and
/// jobs in flight (set when rendered).
public final class WorkerMetrics: Sendable {
    /// Upper bounds of the backend latency histogram, in seconds.
    static let latencyBuckets: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]

    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let latency: CoreMetrics.Timer
    private let audioSeconds: FloatingPointCounter
    private let jobsInFlight: CoreMetrics.Gauge
    private let requestLimit: CoreMetrics.Gauge

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["steno_worker_backend_latency_seconds"] = Self.latencyBuckets.map {
            .nanoseconds(Int64($0 * 1_000_000_000))
        }
        self.factory = factory
        latency = CoreMetrics.Timer(label: "steno_worker_backend_latency_seconds", factory: factory)
        audioSeconds = FloatingPointCounter(label: "steno_worker_audio_seconds_total", factory: factory)
        jobsInFlight = CoreMetrics.Gauge(label: "steno_worker_jobs_in_flight", factory: factory)
        requestLimit = CoreMetrics.Gauge(label: "steno_worker_backend_request_limit", factory: factory)
    }

    func recordJob(_ kind: JobKind, outcome: JobRunOutcome) {
        CoreMetrics.Counter(label: "steno_worker_jobs_total", dimensions: [("kind", kind.rawValue), ("outcome", outcome.rawValue)], factory: factory)
            .increment()
    }

    func recordFailure(_ failureClass: FailureClass) {
        CoreMetrics.Counter(label: "steno_worker_failures_total", dimensions: [("class", failureClass.rawValue)], factory: factory).increment()
    }

    /// An answer the backend returned (and may have charged for) that could not be kept.
    func recordDiscardedAnswer(_ reason: AnswerDisposal.DiscardReason) {
        CoreMetrics.Counter(label: "steno_worker_answers_discarded_total", dimensions: [("reason", reason.rawValue)], factory: factory)
            .increment()
    }

    /// How an ask for speech left without words ended.
    enum SpeechAskedAgain: String {
        case recovered, empty, failed
    }

    func recordSpeechAskedAgain(_ outcome: SpeechAskedAgain, words: Int) {
        CoreMetrics.Counter(label: "steno_worker_speech_asked_again_total", dimensions: [("outcome", outcome.rawValue)], factory: factory).increment()
        if words > 0 {
            CoreMetrics.Counter(label: "steno_worker_speech_recovered_words_total", factory: factory).increment(by: words)
        }
    }

    /// How timing a text-only answer by aligning it with its audio ended.
    enum Alignment: String {
        case aligned, unmatched, failed
        /// Not tried: a translation, whose text is not what its audio says.
        case skipped
    }

    /// `steno_worker_alignment_seconds_total` over `steno_worker_aligned_audio_seconds_total`
    /// is what alignment costs per second of audio.
    func recordAlignment(_ outcome: Alignment, audioSeconds: Double, seconds: Double) {
        CoreMetrics.Counter(label: "steno_worker_alignments_total", dimensions: [("outcome", outcome.rawValue)], factory: factory).increment()
        guard audioSeconds > 0 else { return }
        FloatingPointCounter(label: "steno_worker_aligned_audio_seconds_total", factory: factory).increment(by: audioSeconds)
        FloatingPointCounter(label: "steno_worker_alignment_seconds_total", factory: factory).increment(by: seconds)
    }

    /// How an ask again in the media's settled language, of an answer that came back in another, ended.
    enum LanguageAskedAgain: String {
        case retaken, failed
    }

    func recordLanguageAskedAgain(_ outcome: LanguageAskedAgain) {
        CoreMetrics.Counter(label: "steno_worker_language_asked_again_total", dimensions: [("outcome", outcome.rawValue)], factory: factory).increment()
    }

    func recordFlagged(_ flagged: [FlaggedText]) {
        for item in flagged {
            CoreMetrics.Counter(label: "steno_worker_flagged_characters_total", dimensions: [("reason", item.reason.rawValue)], factory: factory)
                .increment(by: item.text.count)
        }
    }

    func recordTranscription(latency: Duration, audioSeconds: Double) {
        let (seconds, attoseconds) = latency.components
        self.latency.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        self.audioSeconds.increment(by: audioSeconds)
    }

    /// A request that waited `seconds` for its backend's fleet-wide rate limit.
    func recordRateLimitWait(backend: String, seconds: Double) {
        CoreMetrics.Counter(label: "steno_worker_rate_limit_waits_total", dimensions: [("backend", backend)], factory: factory).increment()
        FloatingPointCounter(label: "steno_worker_rate_limit_wait_seconds_total", dimensions: [("backend", backend)], factory: factory)
            .increment(by: seconds)
    }

    /// The Prometheus text exposition format.
    public func render(jobsInFlight: Int, requestLimit: Double) -> String {
        self.jobsInFlight.record(jobsInFlight)
        self.requestLimit.record(requestLimit)
        return registry.emitToString()
    }
}
