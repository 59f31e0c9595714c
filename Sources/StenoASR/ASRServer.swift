import Foundation
public import Hummingbird
public import Logging
public import ServiceLifecycle
import StenoCore
public import StenoSpeech
import Synchronization
import UnixSignals

/// `steno-asr`: a local, offline, OpenAI-compatible transcription server.
///
/// `POST /v1/audio/transcriptions` (multipart, as OpenAI defines it; `/v1/audio/translations`
/// answers 400 `translation_not_supported`), `GET /v1/models`,
/// `GET /healthz`. The model loads in the background after the server starts listening;
/// until it has, transcription requests get 503 with `Retry-After`.
public final class ASRServer: Sendable {
    public let configuration: ASRConfiguration
    let recognizer: SpeechRecognizer
    let logger: Logger
    private let boundPort = Mutex<Int?>(nil)

    public init(configuration: ASRConfiguration, logger: Logger = Logger(label: "steno.asr")) throws(SpeechError) {
        self.configuration = configuration
        self.logger = logger
        self.recognizer = try SpeechRecognizer(
            model: .englishUS(directory: configuration.modelDirectory),
            poolSize: configuration.recognizers, maximumWaiting: configuration.queueLength, logger: logger)
    }

    /// The port the server listens on, once it does (useful with port 0).
    public var port: Int? { boundPort.withLock { $0 } }

    /// Serves until SIGTERM or SIGINT, then stops accepting, finishes requests in flight, and returns.
    public func run() async throws {
        let serviceGroup = ServiceGroup(
            configuration: .init(
                services: [makeApplication(), ModelLoader(recognizer: recognizer, logger: logger)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await serviceGroup.run()
    }

    /// The HTTP application, for running inside another service group (tests do).
    public func makeApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router()
        router.get("/healthz") { _, _ in try self.healthResponse() }
        router.get("/v1/models") { _, _ in try self.modelsResponse() }
        router.post("/v1/audio/transcriptions") { request, context in
            await self.transcriptionResponse(request, context: context)
        }
        // OpenAI's translations endpoint, answered as OpenAI answers a model that cannot do it,
        // so that `steno backend check` and a media enqueued with --translate say why.
        router.post("/v1/audio/translations") { _, _ in
            Self.errorResponse(ASRError(
                status: 400, message: "steno-asr recognizes English speech with pocketsphinx and does not translate; send media enqueued with --translate to a Whisper backend",
                code: "translation_not_supported"))
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "steno-asr"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                self.boundPort.withLock { $0 = port }
                self.logger.info("steno-asr listening", metadata: ["host": "\(self.configuration.host)", "port": "\(port)"])
                await onListening(port)
            },
            logger: logger)
    }

    /// A service that loads the model, so that the server answers (503) while it loads.
    public var modelLoader: some Service { ModelLoader(recognizer: recognizer, logger: logger) }
}

/// Loads the recognisers in the background, then waits for shutdown.
struct ModelLoader: Service {
    let recognizer: SpeechRecognizer
    let logger: Logger

    func run() async throws {
        do {
            try await recognizer.load()
        } catch {
            logger.critical("could not load the speech model", metadata: ["error": "\(error)"])
            throw error
        }
        try? await gracefulShutdown()
        recognizer.shutdown()
    }
}
