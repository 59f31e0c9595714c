public import Foundation
public import StenoCore
public import StenoInfrastructure
public import StenoMedia
public import StenoObjectStore

/// How one worker process runs: identity, concurrency, leases, chunking and shutdown.
public struct WorkerConfiguration: Sendable {
    /// Unique per process: the lease owner in `jobs` and the row in `workers`.
    public var workerID: String
    public var version: String
    /// Jobs in flight at once. Chunk jobs mostly wait on the network, so this is well above the cores.
    public var concurrency: Int
    /// Decodes, energy profiles and encodes at once: they keep a core busy each.
    public var extractionSlots: Int
    /// Pooled database connections, whatever the concurrency; one more session holds LISTEN and
    /// the liveness lock. A job spends nearly all its time on the backend, not the database: two
    /// kept the fleet bench's throughput with 16 jobs a worker (bench/fleet/connections).
    public var databaseConnections = 2
    public static let databaseConnectionsRange = 1...64
    /// How long a claim or a heartbeat holds a job; a worker silent this long loses its jobs.
    public var lease: Duration
    /// How long a worker whose process lives but sends no heartbeat keeps its jobs (`--hang-seconds`).
    public var hangLimit = Duration.seconds(300)
    /// How many deaths of its worker blamed on a job fail it (`--crash-budget`, `DeathVerdict`).
    public var crashBudget = 4
    /// The longest wait before a suspected job runs again (`--quarantine-max-seconds`, `DeathVerdict`).
    public var longestQuarantineWait = RescuePolicy.defaultLongestQuarantineWait
    /// The lock key of the supervisor that started this process (`WorkerSupervisor`), nil when
    /// it runs unsupervised: its death is then seen by the fleet, without evidence of how.
    public var supervisorKey: Int32?
    /// When running jobs are taken back from their worker: at once from a dead process, after
    /// the hang limit from one that lives but sends no heartbeat. After a database restart a
    /// missing lock proves nothing for the lease (at least 5 s): live workers are taking theirs again.
    public var rescue: RescuePolicy {
        RescuePolicy(
            startGrace: max(lease, .seconds(5)), hangLimit: hangLimit, crashBudget: crashBudget, longestQuarantineWait: longestQuarantineWait)
    }
    /// How long an http(s) source may take to connect or to send the next bytes.
    public var sourceTimeout: Duration = MediaFile.defaultSourceTimeout
    /// Where recordings are read from; with an object store (`STENO_S3_*`), `s3://` sources are
    /// read through signed links.
    public var mediaSources = MediaSources(store: nil)
    /// On SIGTERM, how long running jobs may take to finish before they are handed back.
    public var gracePeriod: Duration
    /// Chunk lengths and the backend's limits.
    public var planner: ChunkPlanner.Configuration
    public var chunkFormat: ChunkFormat
    /// Delay before a transiently failed job runs again, growing with its attempts.
    public var retryBackoff: RetryBackoff
    /// How long chunk jobs are not claimed after the backend rejected the configuration (a bad key).
    public var configurationPause: Duration
    /// How long chunk jobs leave a backend that is down alone before one probes it, doubling.
    public var outageProbe = OutageProbe()
    /// How long a chunk job keeps retrying the write of an answer it holds in memory while the
    /// database is unreachable (a restart, a failover), instead of uploading the audio again.
    public var answerWriteWindow: Duration = .seconds(120)
    /// Called once per finished media without a webhook of its own (`STENO_WEBHOOK_URL`).
    public var webhookURL: String?
    /// Hosts that webhooks from API clients may reach although they resolve to private
    /// addresses (`STENO_API_ALLOWED_HOSTS`, as steno-api reads it).
    public var outbound = OutboundURLPolicy()
    /// Whether chapters are read by the speech detector and answers reviewed by the gates
    /// (`STENO_SPEECH_DETECTION`, on by default). Off: every second is uploaded and nothing is
    /// held back, as before speech detection; for recordings where singing is the content.
    public var speechDetection = true
    /// Whether chunk jobs measure the voices of their speech, so that merges can tell speakers
    /// apart (`STENO_SPEAKERS`, default on). A media can also turn it off for itself.
    public var speakerDetection = true
    /// The checks every answer passes (`AnswerGate`).
    public var gate = AnswerGate()
    /// How speech an answer left without words is found and asked for again
    /// (`SpeechCoverage`); nil does not look (`STENO_RECOVER_SPEECH=off`). Needs speech detection.
    public var coverage: SpeechCoverage? = SpeechCoverage()
    /// Whether the words of text-only answers are timed by aligning the text with the chunk's
    /// audio (`STENO_ALIGNMENT`): `auto` (the default) when pocketsphinx's English model is
    /// installed, `on` always (the worker does not start without the model), `off` never
    /// (the words are laid over the chunk's speech).
    public var textAlignment = TextAlignment.auto

    public enum TextAlignment: String, Sendable {
        case auto, on, off
    }

    /// Chunks are played this much faster before upload, their pitch kept (`STENO_SPEEDUP`,
    /// 1 to 3): fewer seconds billed, times scaled back. bench/quality measures what it costs in
    /// words.
    public var speedup = 1.0
    public static let speedupRange = 1.0...3.0

    public init(
        workerID: String = WorkerConfiguration.defaultWorkerID(),
        version: String = StenoVersion.current,
        concurrency: Int = 8,
        extractionSlots: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
        lease: Duration = .seconds(10),
        gracePeriod: Duration = .seconds(20),
        planner: ChunkPlanner.Configuration = ChunkPlanner.Configuration(),
        chunkFormat: ChunkFormat = .flac,
        retryBackoff: RetryBackoff = RetryBackoff(),
        configurationPause: Duration = .seconds(300),
        webhookURL: String? = nil
    ) {
        self.webhookURL = webhookURL
        self.workerID = workerID
        self.version = version
        self.concurrency = max(1, concurrency)
        self.extractionSlots = max(1, extractionSlots)
        self.lease = lease
        self.gracePeriod = gracePeriod
        self.planner = planner
        self.chunkFormat = chunkFormat
        self.retryBackoff = retryBackoff
        self.configurationPause = configurationPause
    }

    /// Heartbeats come four times per lease. A worker whose process died is noticed by the next
    /// heartbeat of any other worker (its liveness lock is gone) and its jobs are claimed again
    /// half a second later; an expired lease is taken back only from a worker without a
    /// liveness lock, or from one whose heartbeat is older than the hang limit.
    public var heartbeatInterval: Duration { lease / 4 }

    /// The port of `/healthz`, `/readyz` and `/metrics` (Prometheus' registry lists 9464 for Steno).
    public static let defaultHTTPPort = 9464
    /// Every interface: probes, HEALTHCHECK and scrapes come to a container's own address.
    public static let defaultHTTPHost = "0.0.0.0"

    /// `host-pid-random`: readable in `steno workers`, unique across restarts and containers.
    public static func defaultWorkerID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "worker"
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return "\(host)-\(ProcessInfo.processInfo.processIdentifier)-\(suffix)"
    }
}
