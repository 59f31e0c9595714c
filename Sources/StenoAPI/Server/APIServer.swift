import Foundation
import Hummingbird
public import Logging
public import ServiceLifecycle
import StenoCore
public import StenoInfrastructure
public import StenoPostgres
import StenoObjectStore
import StenoStore
import Synchronization
import UnixSignals

/// `steno-api`: the HTTP API over the same store the CLI uses. Stateless like the worker: any
/// number of them can serve one database, each with one listening session for its event
/// stream and a small pool for statements.
public final class APIServer: Sendable {
    public let configuration: APIConfiguration
    let database: PostgresConfiguration
    let client: PostgresClient
    let store: AdminStore
    let keys: KeyStore
    let metrics: APIMetrics
    let authenticator: KeyAuthenticator
    let hub: ProgressHub
    let outbound: OutboundURLCheck
    let sessions: SessionStore
    let webAuthenticator: WebSessionAuthenticator
    let assets: WebAssets
    let logger: Logger
    private let boundPort = Mutex<Int?>(nil)
    /// Every wait and every "now" of the server: caches, keep-alives, sweeps, schema waits.
    let clock: any MonotonicClock
    // The route groups, each holding only what its handlers use.
    let operations: OperationsRoutes
    let media: MediaRoutes
    let speakers: SpeakerRoutes
    let tenants: TenantRoutes
    let events: EventRoutes
    let openAI: OpenAIRoutes
    let web: WebRoutes

    public init(
        configuration: APIConfiguration, database: PostgresConfiguration, client: PostgresClient, clock: any MonotonicClock = .continuous,
        logger: Logger
    ) {
        self.clock = clock
        self.configuration = configuration
        self.database = database
        self.client = client
        self.logger = logger
        store = AdminStore(client: client, logger: logger, clock: clock)
        keys = KeyStore(client: client)
        metrics = APIMetrics()
        authenticator = KeyAuthenticator(
            keys: keys, rate: configuration.rate, cacheLifetime: configuration.keyCacheLifetime, metrics: metrics, clock: clock, logger: logger)
        hub = ProgressHub(database: database, store: store, metrics: metrics, clock: clock, logger: logger)
        outbound = OutboundURLCheck(policy: configuration.outbound)
        sessions = SessionStore(client: client)
        webAuthenticator = WebSessionAuthenticator(sessions: sessions, cacheLifetime: configuration.keyCacheLifetime, clock: clock)
        assets = WebAssets(bundle: OpenAPIDocument.bundleDirectory)
        // How this server takes a recording in: uploads, URLs it fetches, paths under its media root.
        let intake = RecordingIntake(
            uploadDirectory: configuration.uploadDirectory, mediaRoot: configuration.mediaRoot, maxUploadBytes: configuration.maxUploadBytes,
            policy: configuration.outbound, outbound: outbound, metrics: metrics, objects: configuration.objects)
        let store = store
        operations = OperationsRoutes(store: store, metrics: metrics, clock: clock, databaseReady: { await Self.databaseReady(store) })
        media = MediaRoutes(store: store, intake: intake, outbound: outbound, clock: clock, logger: logger)
        speakers = SpeakerRoutes(store: store)
        tenants = TenantRoutes(store: store, clock: clock)
        events = EventRoutes(store: store, hub: hub)
        openAI = OpenAIRoutes(
            store: store, hub: hub, intake: intake, speakerEncoder: configuration.speakers, transcriptionTimeout: configuration.transcriptionTimeout,
            clock: clock)
        web = WebRoutes(
            store: store, keys: keys, sessions: sessions, webAuthenticator: webAuthenticator, assets: assets, metrics: metrics, media: media,
            eventRoutes: events, sessionLifetime: configuration.webSessionLifetime, objects: configuration.objects)
    }

    /// The port the server listens on, once it does (useful with port 0).
    public var port: Int? { boundPort.withLock { $0 } }

    /// The services to run in one group: the HTTP server, the event hub, the key-usage writer and,
    /// with an upload directory, its sweeper.
    public func services(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> [any Service] {
        var services: [any Service] = [
            makeApplication(onListening: onListening), hub,
            KeyUsageRecorder(authenticator: authenticator, keys: keys, interval: .seconds(60), clock: clock, logger: logger),
        ]
        if let uploadSweeper { services.append(uploadSweeper) }
        return services
    }

    /// Removes uploads no media names any more; none without an upload directory.
    var uploadSweeper: UploadSweeper? {
        configuration.uploadDirectory.map {
            UploadSweeper(directory: $0, store: store, metrics: metrics, logger: logger, objects: configuration.objects, clock: clock)
        }
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting, finishes requests in flight, and returns.
    public func run() async throws {
        let group = ServiceGroup(
            configuration: .init(services: services(), gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    func makeApplication(onListening: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "steno-api"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                self.boundPort.withLock { $0 = port }
                self.logger.info("steno-api listening", metadata: ["host": "\(self.configuration.host)", "port": "\(port)"])
                await onListening(port)
            },
            logger: logger)
    }

    /// Whether the database answers and has the schema this server needs.
    static func databaseReady(_ store: AdminStore) async -> Bool {
        do {
            try await store.checkSchema()
            return true
        } catch {
            return false
        }
    }
}

/// The API's JSON: snake_case keys, ISO 8601 times in UTC, as `steno ... --json` prints them.
enum APIJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}

extension APIServer {
    /// Refuses to start without the contract it serves. A server started with the database (a
    /// compose file, a rollout) may come up before `steno migrate` has made the schema: it
    /// waits for it, within the database wait (`STENO_DATABASE_WAIT_SECONDS`), saying so once.
    public func checkStartup() async throws {
        guard OpenAPIDocument.isPresent else {
            throw APIError(.internalServerError, code: "openapi_missing", "openapi.yaml is missing: copy steno_StenoAPI.resources beside steno-api")
        }
        if let problem = assets.problem {
            throw APIError(.internalServerError, code: "web_assets_missing", problem)
        }
        // Credentials or a bucket that do not work stop the start with the setting to fix,
        // before any recording is taken in; a store that is only down is waited for per request.
        if let objects = configuration.objects {
            do {
                try await objects.checkAccess()
            } catch where error.isConfiguration {
                throw error
            } catch {
                logger.warning("the object store does not answer yet; uploads wait for it", metadata: ["error": "\(error)"])
            }
        }
        let deadline = clock.now + database.reconnectWindow
        var said = false
        while true {
            let applied = try await StenoSchema.appliedMigration(client)
            if let applied, applied >= StenoSchema.requiredMigration {
                if said { logger.info("the schema is there; starting", metadata: ["migration": "\(applied)"]) }
                return
            }
            let found = applied.map { "the database is at migration \($0)" } ?? "the database has no Steno schema"
            guard clock.now < deadline else {
                throw AdminError(
                    .schemaOutdated,
                    "\(found) after waiting \(Int(database.reconnectWindow / .seconds(1))) s; steno-api needs migration \(StenoSchema.requiredMigration)",
                    hint: "run `steno migrate` first")
            }
            if !said {
                logger.info("waiting for the schema: \(found), steno-api needs migration \(StenoSchema.requiredMigration) (run `steno migrate`)")
                said = true
            }
            try await clock.sleep(for: .seconds(1))
        }
    }
}

extension APIServer {
    /// Clients following `/v1/events` (and streamed transcriptions) now.
    public var eventClients: Int { hub.subscriberCount }
}
