/// What a worker says it is doing (`workers.status`).
public enum WorkerState: String, Sendable, CaseIterable, Codable {
    /// Claiming and running jobs.
    case running
    /// Shutting down: finishing or handing back its jobs, claiming nothing.
    case draining
    /// Up, but sending nothing to a backend that refused its configuration.
    case paused
    /// Exited cleanly.
    case stopped

    /// The state a live worker reports in its heartbeat.
    public static func reported(draining: Bool, pausedBackends: Int) -> WorkerState {
        draining ? .draining : (pausedBackends == 0 ? .running : .paused)
    }
}
