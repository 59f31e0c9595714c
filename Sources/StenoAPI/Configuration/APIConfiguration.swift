public import StenoCore
public import StenoInfrastructure
public import StenoObjectStore
public import StenoVoice

/// How `steno-api` serves: where it listens, where uploads go, what clients may send and how
/// fast. `steno-api --help` names the variable of each setting.
public struct APIConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Where uploads are written (`STENO_UPLOAD_DIR`): a volume every worker mounts at the same
    /// path, since workers read a media where its source says. Without one, uploads are refused.
    public var uploadDirectory: String?
    /// The only directory path sources may name (`STENO_MEDIA_ROOT`); without one, only uploads
    /// and URLs are taken.
    public var mediaRoot: String?
    /// The largest upload (`STENO_API_MAX_UPLOAD_MB`); larger ones get 413 and leave no file.
    public var maxUploadBytes: Int64
    /// Each key's request rate (`STENO_API_RATE` per second, `STENO_API_BURST`).
    public var rate: RequestRate
    /// Hosts that URLs from clients may reach although they resolve to private addresses
    /// (`STENO_API_ALLOWED_HOSTS`).
    public var outbound: OutboundURLPolicy
    /// How long a looked-up key is trusted before it is read again: a revoked key stops
    /// working within this time.
    public var keyCacheLifetime: Duration
    /// How long `POST /v1/audio/transcriptions` waits for the fleet before it answers 504
    /// (`STENO_API_TRANSCRIPTION_TIMEOUT_SECONDS`); the media goes on and can be fetched later.
    public var transcriptionTimeout: Duration
    /// Pooled database connections (`STENO_API_DATABASE_CONNECTIONS`), besides the one that
    /// listens. Few: a request reads at most three statements at once, and connections beyond
    /// the database's cores only queue inside it (bench/api: 4 against 16 on two cores, p99
    /// 22.5 ms against 130 ms at the same throughput).
    public var databaseConnections: Int
    /// How long a web view sign-in lasts (`STENO_WEB_SESSION_HOURS`); revoking its key ends it sooner.
    public var webSessionLifetime: Duration
    /// The speaker encoder, for the reference clips of OpenAI's `known_speaker_references[]`
    /// (`STENO_SPEAKER_MODEL`, else where the worker looks); nil refuses them with a reason.
    public var speakers: SpeakerEncoder?
    /// The object store (`STENO_S3_*`): each recording taken in is moved there once received,
    /// and workers read it from there, so no volume is shared. The upload directory is then
    /// only this server's spool.
    public var objects: ObjectStore?

    public static let defaultPort = 8080
    public static let defaultMaxUploadBytes: Int64 = 8 << 30

    public init(
        host: String = "0.0.0.0", port: Int = APIConfiguration.defaultPort, uploadDirectory: String? = nil, mediaRoot: String? = nil,
        maxUploadBytes: Int64 = APIConfiguration.defaultMaxUploadBytes, rate: RequestRate = RequestRate(requestsPerSecond: 50, burst: 100),
        outbound: OutboundURLPolicy = OutboundURLPolicy(), keyCacheLifetime: Duration = .seconds(5),
        transcriptionTimeout: Duration = .seconds(6 * 3600), databaseConnections: Int = 4,
        webSessionLifetime: Duration = .seconds(12 * 3600)
    ) {
        self.webSessionLifetime = webSessionLifetime
        self.host = host
        self.port = port
        self.uploadDirectory = uploadDirectory
        self.mediaRoot = mediaRoot
        self.maxUploadBytes = maxUploadBytes
        self.rate = rate
        self.outbound = outbound
        self.keyCacheLifetime = keyCacheLifetime
        self.transcriptionTimeout = transcriptionTimeout
        self.databaseConnections = databaseConnections
    }
}
