public import Foundation

/// What `steno report` shows, read from the reporting views.
public struct OperationsReport: Sendable, Equatable, Codable {
    /// A row of `steno_queue`.
    public struct QueueDepth: Sendable, Equatable, Codable {
        public var kind: JobKind
        public var state: JobState
        public var jobs: Int
        public var ready: Int
        public var delayed: Int
        public var oldestAgeSeconds: Double?

        public init(kind: JobKind, state: JobState, jobs: Int, ready: Int, delayed: Int, oldestAgeSeconds: Double?) {
            self.kind = kind
            self.state = state
            self.jobs = jobs
            self.ready = ready
            self.delayed = delayed
            self.oldestAgeSeconds = oldestAgeSeconds
        }
    }

    /// A row of `steno_throughput`.
    public struct Throughput: Sendable, Equatable, Codable {
        public var hour: Date
        public var mediaDone: Int
        public var mediaAudioHours: Double
        public var chunksDone: Int
        public var chunkAudioHours: Double

        public init(hour: Date, mediaDone: Int, mediaAudioHours: Double, chunksDone: Int, chunkAudioHours: Double) {
            self.hour = hour
            self.mediaDone = mediaDone
            self.mediaAudioHours = mediaAudioHours
            self.chunksDone = chunksDone
            self.chunkAudioHours = chunkAudioHours
        }
    }

    /// Percentiles over `steno_latency` for media that succeeded in the period.
    public struct Latency: Sendable, Equatable, Codable {
        public var media: Int
        public var p50Seconds: Double?
        public var p95Seconds: Double?

        public init(media: Int, p50Seconds: Double?, p95Seconds: Double?) {
            self.media = media
            self.p50Seconds = p50Seconds
            self.p95Seconds = p95Seconds
        }
    }

    /// `steno_failures` summed over the period, per failure class.
    public struct Failures: Sendable, Equatable, Codable {
        public var errorClass: String
        public var attempts: Int
        /// Attempts that failed their job for good; the others were retried.
        public var final: Int
        public var lastMessage: String?

        public init(errorClass: String, attempts: Int, final: Int, lastMessage: String?) {
            self.errorClass = errorClass
            self.attempts = attempts
            self.final = final
            self.lastMessage = lastMessage
        }
    }

    /// A row of `steno_costs`.
    public struct Cost: Sendable, Equatable, Codable {
        public var day: String
        public var model: String
        public var backend: String
        public var chunks: Int
        public var audioHours: Double
        public var costUSD: Double
        /// Hours of detected speech in that audio; nil for chunks planned without speech detection.
        public var speechHours: Double?

        public init(day: String, model: String, backend: String, chunks: Int, audioHours: Double, costUSD: Double, speechHours: Double? = nil) {
            self.speechHours = speechHours
            self.day = day
            self.model = model
            self.backend = backend
            self.chunks = chunks
            self.audioHours = audioHours
            self.costUSD = costUSD
        }
    }

    public var since: Date
    public var queue: [QueueDepth]
    public var throughput: [Throughput]
    public var latency: Latency
    public var failures: [Failures]
    public var costs: [Cost]
    /// Each tenant's use by UTC day (`steno_tenant_usage`): what billing reads.
    public var tenants: [TenantDay]

    /// One tenant's use on one UTC day.
    public struct TenantDay: Sendable, Equatable, Codable {
        public var tenant: String
        public var usage: TenantUsage

        public init(tenant: String, usage: TenantUsage) {
            self.tenant = tenant
            self.usage = usage
        }
    }

    public init(
        since: Date, queue: [QueueDepth], throughput: [Throughput], latency: Latency, failures: [Failures], costs: [Cost],
        tenants: [TenantDay] = []
    ) {
        self.tenants = tenants
        self.since = since
        self.queue = queue
        self.throughput = throughput
        self.latency = latency
        self.failures = failures
        self.costs = costs
    }
}
