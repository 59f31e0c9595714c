public import Foundation

/// Why an unfinished media is not moving right now, in words an operator can act on.
public struct MediaHold: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// Workers stopped claiming chunk jobs for a backend that refused the configuration.
        case backendPaused = "backend_paused"
        /// Jobs failed transiently and wait for their next attempt.
        case waitingToRetry = "waiting_to_retry"
        /// No worker has sent a heartbeat recently.
        case noWorkers = "no_workers"
        /// A job was running when its worker's process died in a way that suspects it
        /// (`DeathVerdict.quarantine`): it runs alone, after a wait.
        case quarantined
        /// The media's tenant reached a budget: its chunk jobs wait until it is raised or the
        /// period ends.
        case overBudget = "over_budget"
        /// The media's tenant has as many chunk jobs in flight as its cap allows.
        case tenantCap = "tenant_cap"
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// What the database says about one media's queued jobs and the fleet, read in one statement.
    public struct Facts: Sendable, Equatable {
        public var mediaFinished: Bool
        public var queuedChunkJobs: Int
        public var retryingJobs: Int
        public var nextRetryAt: Date?
        public var highestAttempt: Int
        public var maxAttempts: Int
        public var lastError: String?
        public var liveWorkers: Int
        /// Backend names paused by live workers, and until when.
        public var pausedBackends: [String: Date]
        public var pauseMessage: String?
        /// Queued or running jobs that run alone because a death of their worker suspects them.
        public var quarantinedJobs: Int
        /// The newest such job's reason, which names the evidence.
        public var quarantineReason: String?
        /// The media's tenant.
        public var tenant: String = NewMedia.defaultTenant
        /// The budget the tenant reached (`steno_over_budget`), if any.
        public var overBudget: String?
        /// The tenant's cap on chunk jobs in flight, and how many it has in flight.
        public var tenantCap: Int?
        public var tenantRunningChunks: Int = 0

        public init(
            mediaFinished: Bool, queuedChunkJobs: Int, retryingJobs: Int, nextRetryAt: Date?, highestAttempt: Int, maxAttempts: Int,
            lastError: String?, liveWorkers: Int, pausedBackends: [String: Date], pauseMessage: String?,
            quarantinedJobs: Int = 0, quarantineReason: String? = nil
        ) {
            self.quarantinedJobs = quarantinedJobs
            self.quarantineReason = quarantineReason
            self.mediaFinished = mediaFinished
            self.queuedChunkJobs = queuedChunkJobs
            self.retryingJobs = retryingJobs
            self.nextRetryAt = nextRetryAt
            self.highestAttempt = highestAttempt
            self.maxAttempts = maxAttempts
            self.lastError = lastError
            self.liveWorkers = liveWorkers
            self.pausedBackends = pausedBackends
            self.pauseMessage = pauseMessage
        }
    }

    /// The holds the facts add up to; none for a finished media.
    public static func holds(_ facts: Facts, now: Date) -> [MediaHold] {
        guard !facts.mediaFinished else { return [] }
        var holds: [MediaHold] = []
        if facts.liveWorkers == 0 {
            holds.append(MediaHold(kind: .noWorkers, message: "no worker has sent a heartbeat in the last minute: start steno-worker"))
        }
        if !facts.pausedBackends.isEmpty && facts.queuedChunkJobs > 0 {
            let names = facts.pausedBackends.keys.sorted().joined(separator: ", ")
            let until = facts.pausedBackends.values.max().map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? ""
            var message = "chunk jobs are paused\(until): backend \(names) refused the configuration (a bad API key, no quota or an unknown model)"
            if let detail = facts.pauseMessage, !detail.isEmpty { message += " (\(detail))" }
            message += "; fix it and the workers resume by themselves"
            holds.append(MediaHold(kind: .backendPaused, message: message))
        }
        if facts.retryingJobs > 0 {
            var message = "\(facts.retryingJobs) job\(facts.retryingJobs == 1 ? "" : "s") waiting to retry after failing"
            message += " (attempt \(facts.highestAttempt) of \(facts.maxAttempts) so far)"
            if let next = facts.nextRetryAt {
                let seconds = max(0, Int(next.timeIntervalSince(now).rounded(.up)))
                message += ", next in \(seconds) s"
            }
            if let lastError = facts.lastError, !lastError.isEmpty { message += "; last error: \(lastError)" }
            holds.append(MediaHold(kind: .waitingToRetry, message: message))
        }
        if facts.quarantinedJobs > 0 {
            var message = "\(facts.quarantinedJobs) job\(facts.quarantinedJobs == 1 ? "" : "s") quarantined"
            if let reason = facts.quarantineReason, !reason.isEmpty { message += " (\(reason))" }
            holds.append(MediaHold(kind: .quarantined, message: message))
        }
        if let reason = facts.overBudget, facts.queuedChunkJobs > 0 {
            holds.append(MediaHold(kind: .overBudget, message: "chunk jobs wait: \(reason); nothing is lost, and the work goes on once it is raised"))
        }
        if let cap = facts.tenantCap, facts.tenantRunningChunks >= cap, facts.queuedChunkJobs > 0 {
            holds.append(
                MediaHold(
                    kind: .tenantCap,
                    message: "tenant \(facts.tenant) has \(facts.tenantRunningChunks) chunk jobs in flight, its cap of \(cap); "
                        + "the rest wait their turn (raise it with `steno tenants set \(facts.tenant) --max-in-flight N`)"))
        }
        return holds
    }
}
