public import Foundation

/// What the web view's overview shows: a tenant's backlog and failures, and, for an admin key,
/// the fleet that works on it (queue, pace, spend, workers and backends).
public struct FleetOverview: Sendable, Equatable {
    /// The tenant's media in one state and priority.
    public struct BacklogCell: Sendable, Equatable {
        public var state: MediaState
        public var priority: JobPriority
        public var media: Int

        public init(state: MediaState, priority: JobPriority, media: Int) {
            self.state = state
            self.priority = priority
            self.media = media
        }
    }

    /// The tenant's media that failed, or whose jobs wait to retry, for one failure class.
    public struct FailureGroup: Sendable, Equatable {
        public var errorClass: String
        /// Media that failed for good with this class: `retry` applies to them.
        public var failedMedia: Int
        /// Unfinished media with a job waiting to retry after this class: `cancel` applies to them.
        public var retryingMedia: Int
        public var lastMessage: String?
        public var newestMediaID: Int64?

        public init(errorClass: String, failedMedia: Int, retryingMedia: Int, lastMessage: String?, newestMediaID: Int64?) {
            self.errorClass = errorClass
            self.failedMedia = failedMedia
            self.retryingMedia = retryingMedia
            self.lastMessage = lastMessage
            self.newestMediaID = newestMediaID
        }

        public var explanation: String { FailureClass.explain(errorClass) }
        public var remedy: String? { FailureClass(rawValue: errorClass)?.remedy }
    }

    /// Failed attempts of one failure class.
    public struct ErrorCount: Sendable, Equatable {
        public var errorClass: String
        public var attempts: Int

        public init(errorClass: String, attempts: Int) {
            self.errorClass = errorClass
            self.attempts = attempts
        }
    }

    /// One transcription backend as the fleet sees it.
    public struct Backend: Sendable, Equatable {
        public struct Outage: Sendable, Equatable {
            public var reason: String
            public var since: Date
            public var probeAt: Date
            public var failures: Int

            public init(reason: String, since: Date, probeAt: Date, failures: Int) {
                self.reason = reason
                self.since = since
                self.probeAt = probeAt
                self.failures = failures
            }
        }

        public var name: String
        public var outage: Outage?
        /// Live workers whose heartbeat says they paused chunk jobs for it.
        public var pausedBy: Int
        /// The sum of the live workers' AIMD request windows towards it, and their requests in flight.
        public var requestLimit: Double?
        public var requestsInFlight: Int
        public var rateLimit: RateLimitStatus?
        /// Failed attempts in the last 24 hours, by failure class, most first.
        public var errorsByClass: [ErrorCount]
        /// Paid audio seconds and cost in the last 24 hours.
        public var paidSeconds: Double
        public var costUSD: Double

        public init(
            name: String, outage: Outage? = nil, pausedBy: Int = 0, requestLimit: Double? = nil, requestsInFlight: Int = 0,
            rateLimit: RateLimitStatus? = nil, errorsByClass: [ErrorCount] = [], paidSeconds: Double = 0, costUSD: Double = 0
        ) {
            self.name = name
            self.outage = outage
            self.pausedBy = pausedBy
            self.requestLimit = requestLimit
            self.requestsInFlight = requestsInFlight
            self.rateLimit = rateLimit
            self.errorsByClass = errorsByClass
            self.paidSeconds = paidSeconds
            self.costUSD = costUSD
        }

        /// Down (an outage row), paused (workers hold chunk jobs back), or up.
        public var health: Health {
            if outage != nil { return .down }
            if pausedBy > 0 { return .paused }
            return .up
        }

        public enum Health: String, Sendable {
            case up, down, paused
        }
    }

    /// What the fleet did and spent over the last 24 hours and the last hour.
    public struct Spend: Sendable, Equatable {
        public var paidSeconds: Double
        public var audioSeconds: Double
        public var costUSD: Double
        public var costLastHourUSD: Double

        public init(paidSeconds: Double, audioSeconds: Double, costUSD: Double, costLastHourUSD: Double) {
            self.paidSeconds = paidSeconds
            self.audioSeconds = audioSeconds
            self.costUSD = costUSD
            self.costLastHourUSD = costLastHourUSD
        }

        /// Dollars per hour of audio transcribed; nil before any audio was.
        public var costPerAudioHour: Double? { audioSeconds > 0 ? costUSD / (audioSeconds / 3600) : nil }
    }

    /// The fleet's part: only for a key that may see every tenant's work (admin).
    public struct Fleet: Sendable, Equatable {
        public var queue: [OperationsReport.QueueDepth]
        public var oldestWaitingSeconds: Double?
        public var estimate: BacklogEstimate
        public var spend: Spend
        public var workers: [WorkerStatus]
        public var backends: [Backend]

        public init(
            queue: [OperationsReport.QueueDepth], oldestWaitingSeconds: Double?, estimate: BacklogEstimate, spend: Spend, workers: [WorkerStatus],
            backends: [Backend]
        ) {
            self.queue = queue
            self.oldestWaitingSeconds = oldestWaitingSeconds
            self.estimate = estimate
            self.spend = spend
            self.workers = workers
            self.backends = backends
        }
    }

    public var tenant: String
    public var backlog: [BacklogCell]
    /// The tenant's unfinished media: audio still to transcribe, and the oldest waiting.
    public var remainingAudioSeconds: Double
    public var oldestWaitingSeconds: Double?
    public var failures: [FailureGroup]
    public var fleet: Fleet?

    public init(
        tenant: String, backlog: [BacklogCell], remainingAudioSeconds: Double, oldestWaitingSeconds: Double?, failures: [FailureGroup],
        fleet: Fleet?
    ) {
        self.tenant = tenant
        self.backlog = backlog
        self.remainingAudioSeconds = remainingAudioSeconds
        self.oldestWaitingSeconds = oldestWaitingSeconds
        self.failures = failures
        self.fleet = fleet
    }

    /// Media of `state`, all priorities.
    public func media(in state: MediaState) -> Int {
        backlog.filter { $0.state == state }.reduce(0) { $0 + $1.media }
    }

    /// Media of `state` and `priority`.
    public func media(in state: MediaState, priority: JobPriority) -> Int {
        backlog.first { $0.state == state && $0.priority == priority }?.media ?? 0
    }
}
