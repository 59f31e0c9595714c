import StenoCore
import Synchronization

/// The worker's Prometheus metrics: jobs by kind and outcome, failures by class, backend
/// latency, audio seconds transcribed, and jobs in flight (read when rendered).
public final class WorkerMetrics: Sendable {
    /// Upper bounds of the backend latency histogram, in seconds.
    static let latencyBuckets: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]

    private struct State {
        var jobs: [String: Int] = [:]
        var failures: [String: Int] = [:]
        var latencyCounts = [Int](repeating: 0, count: WorkerMetrics.latencyBuckets.count)
        var latencyCount = 0
        var latencySum = 0.0
        var audioSeconds = 0.0
    }

    private let state = Mutex(State())

    public init() {}

    /// A job ended: `succeeded`, `failed`, `retry`, `cancelled`, `released` or `lease_lost`.
    func recordJob(_ kind: JobKind, outcome: String) {
        state.withLock { $0.jobs["kind=\"\(kind.rawValue)\",outcome=\"\(outcome)\"", default: 0] += 1 }
    }

    func recordFailure(_ failureClass: FailureClass) {
        state.withLock { $0.failures["class=\"\(failureClass.rawValue)\"", default: 0] += 1 }
    }

    func recordTranscription(latency: Duration, audioSeconds: Double) {
        let seconds = latency.seconds
        state.withLock { state in
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound {
                state.latencyCounts[index] += 1
            }
            state.latencyCount += 1
            state.latencySum += seconds
            state.audioSeconds += audioSeconds
        }
    }

    /// The Prometheus text exposition format.
    public func render(jobsInFlight: Int) -> String {
        let state = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP steno_worker_jobs_total Jobs this worker ended, by kind and outcome.")
        lines.append("# TYPE steno_worker_jobs_total counter")
        for (labels, count) in state.jobs.sorted(by: { $0.key < $1.key }) {
            lines.append("steno_worker_jobs_total{\(labels)} \(count)")
        }
        lines.append("# HELP steno_worker_failures_total Failed job attempts, by failure class.")
        lines.append("# TYPE steno_worker_failures_total counter")
        for (labels, count) in state.failures.sorted(by: { $0.key < $1.key }) {
            lines.append("steno_worker_failures_total{\(labels)} \(count)")
        }
        lines.append("# HELP steno_worker_backend_latency_seconds Time the transcription backend took per chunk.")
        lines.append("# TYPE steno_worker_backend_latency_seconds histogram")
        for (index, bound) in Self.latencyBuckets.enumerated() {
            lines.append("steno_worker_backend_latency_seconds_bucket{le=\"\(bound)\"} \(state.latencyCounts[index])")
        }
        lines.append("steno_worker_backend_latency_seconds_bucket{le=\"+Inf\"} \(state.latencyCount)")
        lines.append("steno_worker_backend_latency_seconds_sum \(state.latencySum)")
        lines.append("steno_worker_backend_latency_seconds_count \(state.latencyCount)")
        lines.append("# HELP steno_worker_audio_seconds_total Seconds of audio transcribed.")
        lines.append("# TYPE steno_worker_audio_seconds_total counter")
        lines.append("steno_worker_audio_seconds_total \(state.audioSeconds)")
        lines.append("# HELP steno_worker_jobs_in_flight Jobs running in this worker now.")
        lines.append("# TYPE steno_worker_jobs_in_flight gauge")
        lines.append("steno_worker_jobs_in_flight \(jobsInFlight)")
        return lines.joined(separator: "\n") + "\n"
    }
}
