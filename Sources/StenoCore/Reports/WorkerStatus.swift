public import Foundation

/// A worker as `steno workers` shows it: a row of `steno_worker_status`.
public struct WorkerStatus: Sendable, Equatable, Codable {
    public var id: String
    public var hostname: String
    public var pid: Int
    public var version: String
    /// running, draining, paused or stopped, as the worker reports it.
    public var status: WorkerState
    public var statusMessage: String?
    /// What the worker last reported.
    public var jobsInFlight: Int
    /// Jobs whose lease it holds now, counted in the queue.
    public var runningJobs: Int
    /// Backend name to what the worker stored about the pause (typically until when, and why).
    public var pausedBackends: [String: String]
    public var startedAt: Date
    public var lastHeartbeatAt: Date
    public var heartbeatAgeSeconds: Double

    public init(
        id: String, hostname: String, pid: Int, version: String, status: WorkerState, statusMessage: String?, jobsInFlight: Int,
        runningJobs: Int, pausedBackends: [String: String], startedAt: Date, lastHeartbeatAt: Date, heartbeatAgeSeconds: Double
    ) {
        self.id = id
        self.hostname = hostname
        self.pid = pid
        self.version = version
        self.status = status
        self.statusMessage = statusMessage
        self.jobsInFlight = jobsInFlight
        self.runningJobs = runningJobs
        self.pausedBackends = pausedBackends
        self.startedAt = startedAt
        self.lastHeartbeatAt = lastHeartbeatAt
        self.heartbeatAgeSeconds = heartbeatAgeSeconds
    }

    /// Live: not stopped, and heard from within `staleAfter` seconds.
    public func isLive(staleAfter: Double) -> Bool {
        status != .stopped && heartbeatAgeSeconds <= staleAfter
    }
}
